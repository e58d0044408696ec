CREATE TABLE "saved_filters" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"table_sid" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"query" text DEFAULT '' NOT NULL,
	"users" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"is_archived" boolean DEFAULT false NOT NULL,
	"owner_sid" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "saved_filters" ADD CONSTRAINT "saved_filters_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_filters" ADD CONSTRAINT "saved_filters_table_sid_record_tables_sid_fk" FOREIGN KEY ("table_sid") REFERENCES "public"."record_tables"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_filters" ADD CONSTRAINT "saved_filters_owner_sid_personnel_sid_fk" FOREIGN KEY ("owner_sid") REFERENCES "public"."personnel"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "saved_filters_org_order_idx" ON "saved_filters" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "saved_filters_table_order_idx" ON "saved_filters" USING btree ("table_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "saved_filters_users_idx" ON "saved_filters" USING gin ("users");--> statement-breakpoint
CREATE INDEX "projects_org_open_idx" ON "projects" USING btree ("organization_sid") WHERE open_to_organization;--> statement-breakpoint
CREATE INDEX "record_rows_org_open_idx" ON "record_rows" USING btree ("organization_sid","table_sid") WHERE open_to_organization;