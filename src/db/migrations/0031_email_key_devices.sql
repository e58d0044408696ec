-- Issue 21, points 4 and 5: one way to compare addresses (src/core/email.ts), and the
-- device cookies and unlock links that keep an account's owner from being locked out.

-- A browser or client that signed in to an account before (the SHA-256 of its device cookie's token, per account).
CREATE TABLE "trusted_devices" (
	"token_hash" text NOT NULL,
	"user_sid" text NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trusted_devices_token_hash_user_sid_pk" PRIMARY KEY("token_hash","user_sid")
);
--> statement-breakpoint
-- The one-time tags of the mailed unlock links.
CREATE TABLE "unlock_tags" (
	"tag_hash" text PRIMARY KEY NOT NULL,
	"user_sid" text NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"used_at" timestamp (6) with time zone,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "trusted_devices" ADD CONSTRAINT "trusted_devices_user_sid_users_sid_fk" FOREIGN KEY ("user_sid") REFERENCES "public"."users"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "unlock_tags" ADD CONSTRAINT "unlock_tags_user_sid_users_sid_fk" FOREIGN KEY ("user_sid") REFERENCES "public"."users"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "trusted_devices_user_idx" ON "trusted_devices" USING btree ("user_sid");--> statement-breakpoint
CREATE INDEX "trusted_devices_expires_idx" ON "trusted_devices" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "unlock_tags_user_idx" ON "unlock_tags" USING btree ("user_sid");--> statement-breakpoint
CREATE INDEX "unlock_tags_expires_idx" ON "unlock_tags" USING btree ("expires_at");--> statement-breakpoint

-- The key of every account's address, as normalizeEmail() computes it. Every address the
-- API ever stored is ASCII (its Email schema, format "email", refuses anything else), and
-- for ASCII the key is A-Z to a-z, which translate() computes the same way in any locale.
-- An address written into the database by hand with other characters gets PostgreSQL's
-- nearest (NFKC, then lower()); if that is not what the service computes, no sign-in finds
-- the account (it is never found by another spelling).
-- Two accounts whose addresses share a key (only possible where lower() was Turkish, or
-- after hand edits; the old unique index was on lower(email)): the one that can sign in
-- keeps it (a password, then a proved address, then the oldest); the others keep
-- email_key NULL: no sign-in, reset, invitation or signup finds them, their sessions, API
-- keys and records stay, and the operator merges or renames them (docs/decisions.md).
ALTER TABLE "users" ADD COLUMN "email_key" text;--> statement-breakpoint
UPDATE "users" u SET "email_key" = k.key
  FROM (
    SELECT c.sid, c.key,
           row_number() OVER (PARTITION BY c.key ORDER BY c.password_hash IS NULL, c.email_verified_at IS NULL, c.date_joined, c.sid) AS rank
      FROM (
        SELECT sid, password_hash, email_verified_at, date_joined,
               CASE WHEN email ~ '^[\x01-\x7f]*$' THEN translate(email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
                    ELSE lower(normalize(email, NFKC)) END AS key
          FROM "users") c
  ) k
 WHERE k.sid = u.sid AND k.rank = 1;--> statement-breakpoint
DROP INDEX "users_email_lower_key";--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key_key" ON "users" USING btree ("email_key");--> statement-breakpoint

-- Proven addresses were stored as lower(address); they are keys now (the same for ASCII
-- wherever lower() was not Turkish).
INSERT INTO "proven_addresses" ("user_sid", "email", "date_proven")
  SELECT "user_sid", translate("email", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), "date_proven" FROM "proven_addresses"
   WHERE "email" ~ '^[\x01-\x7f]*$' AND "email" <> translate("email", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
  ON CONFLICT DO NOTHING;--> statement-breakpoint
DELETE FROM "proven_addresses"
 WHERE "email" ~ '^[\x01-\x7f]*$' AND "email" <> translate("email", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
