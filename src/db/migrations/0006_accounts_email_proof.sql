CREATE TABLE "email_proofs" (
	"tag_hash" text PRIMARY KEY NOT NULL,
	"user_sid" text NOT NULL,
	"email" text NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"used_at" timestamp (6) with time zone,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "proven_addresses" (
	"user_sid" text NOT NULL,
	"email" text NOT NULL,
	"date_proven" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "proven_addresses_user_sid_email_pk" PRIMARY KEY("user_sid","email")
);
--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"hits" integer DEFAULT 0 NOT NULL,
	"window_start" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"next_allowed_at" timestamp (6) with time zone
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_verified_at" timestamp (6) with time zone;--> statement-breakpoint
ALTER TABLE "email_proofs" ADD CONSTRAINT "email_proofs_user_sid_users_sid_fk" FOREIGN KEY ("user_sid") REFERENCES "public"."users"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proven_addresses" ADD CONSTRAINT "proven_addresses_user_sid_users_sid_fk" FOREIGN KEY ("user_sid") REFERENCES "public"."users"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_proofs_user_idx" ON "email_proofs" USING btree ("user_sid");--> statement-breakpoint
CREATE INDEX "email_proofs_expires_idx" ON "email_proofs" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "rate_limits_expires_idx" ON "rate_limits" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "organizations_created_by_idx" ON "organizations" USING btree ("created_by");--> statement-breakpoint
DROP TABLE "login_failures" CASCADE;--> statement-breakpoint
-- Accounts that already had a password were accepted under the old rules: they count as
-- proven (docs/decisions.md). Invited accounts that never chose a password stay unproven.
UPDATE "users" SET "email_verified_at" = "date_joined" WHERE "password_hash" IS NOT NULL;--> statement-breakpoint
INSERT INTO "proven_addresses" ("user_sid", "email") SELECT "sid", lower("email") FROM "users" WHERE "email_verified_at" IS NOT NULL;
