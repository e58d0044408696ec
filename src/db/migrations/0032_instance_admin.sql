-- Instance administrators (users.is_instance_admin), the settings they change while the service runs
-- (instance_settings: one row, null = the environment's value), a proof tag that changes an unproven
-- account's sign-in email (email_proofs.changes_signin), and the indexes of the admin screen's lists and of
-- the personnel list's is_administrator filter (the account search reads the address's key, users.email_key
-- of migration 0031). docs/decisions.md, "The instance's administrators".
CREATE TABLE "instance_settings" (
	"id" smallint PRIMARY KEY NOT NULL,
	"signup_enabled" boolean,
	"initial_credits" numeric(14, 2),
	"organizations_per_user" integer,
	"sales_contact" text,
	"updated_by" text,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "instance_settings_one_row" CHECK ("instance_settings"."id" = 1),
	CONSTRAINT "instance_settings_credits_check" CHECK ("instance_settings"."initial_credits" >= 0),
	CONSTRAINT "instance_settings_organizations_check" CHECK ("instance_settings"."organizations_per_user" >= 1)
);
--> statement-breakpoint
ALTER TABLE "email_proofs" ADD COLUMN "changes_signin" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "is_instance_admin" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "instance_settings" ADD CONSTRAINT "instance_settings_updated_by_users_sid_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "organizations_created_idx" ON "organizations" USING btree ("date_created","sid");--> statement-breakpoint
CREATE INDEX "organizations_name_trgm_idx" ON "organizations" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "personnel_org_admins_idx" ON "personnel" USING btree ("organization_sid","date_created","sid") WHERE is_administrator;--> statement-breakpoint
CREATE INDEX "users_instance_admin_idx" ON "users" USING btree ("sid") WHERE is_instance_admin;--> statement-breakpoint
CREATE INDEX "users_joined_idx" ON "users" USING btree ("date_joined","sid");--> statement-breakpoint
CREATE INDEX "users_name_trgm_idx" ON "users" USING gin (("first_name" || ' ' || "last_name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_email_trgm_idx" ON "users" USING gin ("email_key" gin_trgm_ops);
