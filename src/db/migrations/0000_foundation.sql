CREATE TABLE "credentials" (
	"key_hash" text PRIMARY KEY NOT NULL,
	"sid" text NOT NULL,
	"user_sid" text NOT NULL,
	"kind" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credentials_sid_unique" UNIQUE("sid")
);
--> statement-breakpoint
CREATE TABLE "login_failures" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"window_start" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"to_address" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_sent" timestamp (6) with time zone
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"sid" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"credits" numeric(14, 2) DEFAULT '0' NOT NULL,
	"created_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "password_resets" (
	"tag_hash" text PRIMARY KEY NOT NULL,
	"user_sid" text NOT NULL,
	"expires_at" timestamp (6) with time zone NOT NULL,
	"used_at" timestamp (6) with time zone,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "personnel" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"user_sid" text NOT NULL,
	"email" text NOT NULL,
	"first_name" text DEFAULT '' NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"date_start" date DEFAULT CURRENT_DATE NOT NULL,
	"date_end" date,
	"is_administrator" boolean DEFAULT false NOT NULL,
	"is_archived" boolean DEFAULT false NOT NULL,
	"is_use_single_sign_on" boolean DEFAULT false NOT NULL,
	"dashboard" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"should_receive_weekly_digest" boolean DEFAULT false NOT NULL,
	"should_receive_statement_digest" boolean DEFAULT false NOT NULL,
	"should_receive_mention_notification" boolean DEFAULT true NOT NULL,
	"should_receive_record_change_notification" boolean DEFAULT true NOT NULL,
	"should_receive_notification_email" boolean DEFAULT false NOT NULL,
	"updated_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"sid" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"first_name" text DEFAULT '' NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"password_hash" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"date_joined" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_user_sid_users_sid_fk" FOREIGN KEY ("user_sid") REFERENCES "public"."users"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_created_by_users_sid_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_user_sid_users_sid_fk" FOREIGN KEY ("user_sid") REFERENCES "public"."users"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personnel" ADD CONSTRAINT "personnel_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personnel" ADD CONSTRAINT "personnel_user_sid_users_sid_fk" FOREIGN KEY ("user_sid") REFERENCES "public"."users"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personnel" ADD CONSTRAINT "personnel_updated_by_users_sid_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credentials_user_kind_idx" ON "credentials" USING btree ("user_sid","kind","date_created");--> statement-breakpoint
CREATE INDEX "mail_outbox_pending_idx" ON "mail_outbox" USING btree ("next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "password_resets_user_idx" ON "password_resets" USING btree ("user_sid");--> statement-breakpoint
CREATE UNIQUE INDEX "personnel_org_user_key" ON "personnel" USING btree ("organization_sid","user_sid");--> statement-breakpoint
CREATE INDEX "personnel_org_order_idx" ON "personnel" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "personnel_user_idx" ON "personnel" USING btree ("user_sid");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_lower_key" ON "users" USING btree (lower("email"));