CREATE TABLE "cells" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"row_sid" text NOT NULL,
	"column_sid" text NOT NULL,
	"widget_sid" text NOT NULL,
	"data" text DEFAULT '' NOT NULL,
	"created_by" text,
	"updated_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "record_columns" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"table_sid" text NOT NULL,
	"widget_sid" text NOT NULL,
	"name" text NOT NULL,
	"order" integer DEFAULT 0 NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_ledger" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"sid" text NOT NULL,
	"organization_sid" text NOT NULL,
	"amount" numeric(14, 2) NOT NULL,
	"balance_after" numeric(14, 2) NOT NULL,
	"reason" text NOT NULL,
	"cell_sid" text,
	"row_sid" text,
	"user_sid" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_ledger_sid_unique" UNIQUE("sid")
);
--> statement-breakpoint
CREATE TABLE "project_members" (
	"sid" text PRIMARY KEY NOT NULL,
	"project_sid" text NOT NULL,
	"personnel_sid" text NOT NULL,
	"permission" text NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_members_permission_check" CHECK ("project_members"."permission" IN ('admin', 'edit', 'view'))
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "record_rows" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"table_sid" text NOT NULL,
	"project_sid" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"is_locked" boolean DEFAULT false NOT NULL,
	"is_archived" boolean DEFAULT false NOT NULL,
	"version" integer DEFAULT 0 NOT NULL,
	"last_hash" text DEFAULT '' NOT NULL,
	"created_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "record_tables" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "versions" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"row_sid" text NOT NULL,
	"version" integer NOT NULL,
	"hash" text NOT NULL,
	"previous_hash" text NOT NULL,
	"data" jsonb NOT NULL,
	"activity_message" text DEFAULT '' NOT NULL,
	"commit" text,
	"updated_by" text NOT NULL,
	"date_created" timestamp (6) with time zone NOT NULL,
	"date_updated" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "widgets" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"kind" text DEFAULT 'text' NOT NULL,
	"price" numeric(12, 2) DEFAULT '0' NOT NULL,
	"addable_at_readonly" boolean DEFAULT false NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "widgets_price_check" CHECK ("widgets"."price" >= 0)
);
--> statement-breakpoint
ALTER TABLE "cells" ADD CONSTRAINT "cells_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cells" ADD CONSTRAINT "cells_row_sid_record_rows_sid_fk" FOREIGN KEY ("row_sid") REFERENCES "public"."record_rows"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cells" ADD CONSTRAINT "cells_column_sid_record_columns_sid_fk" FOREIGN KEY ("column_sid") REFERENCES "public"."record_columns"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cells" ADD CONSTRAINT "cells_widget_sid_widgets_sid_fk" FOREIGN KEY ("widget_sid") REFERENCES "public"."widgets"("sid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cells" ADD CONSTRAINT "cells_created_by_users_sid_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cells" ADD CONSTRAINT "cells_updated_by_users_sid_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_columns" ADD CONSTRAINT "record_columns_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_columns" ADD CONSTRAINT "record_columns_table_sid_record_tables_sid_fk" FOREIGN KEY ("table_sid") REFERENCES "public"."record_tables"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_columns" ADD CONSTRAINT "record_columns_widget_sid_widgets_sid_fk" FOREIGN KEY ("widget_sid") REFERENCES "public"."widgets"("sid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_project_sid_projects_sid_fk" FOREIGN KEY ("project_sid") REFERENCES "public"."projects"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_personnel_sid_personnel_sid_fk" FOREIGN KEY ("personnel_sid") REFERENCES "public"."personnel"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_created_by_users_sid_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_rows" ADD CONSTRAINT "record_rows_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_rows" ADD CONSTRAINT "record_rows_table_sid_record_tables_sid_fk" FOREIGN KEY ("table_sid") REFERENCES "public"."record_tables"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_rows" ADD CONSTRAINT "record_rows_project_sid_projects_sid_fk" FOREIGN KEY ("project_sid") REFERENCES "public"."projects"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_rows" ADD CONSTRAINT "record_rows_created_by_users_sid_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_tables" ADD CONSTRAINT "record_tables_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_tables" ADD CONSTRAINT "record_tables_created_by_users_sid_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_row_sid_record_rows_sid_fk" FOREIGN KEY ("row_sid") REFERENCES "public"."record_rows"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widgets" ADD CONSTRAINT "widgets_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cells_row_column_key" ON "cells" USING btree ("row_sid","column_sid");--> statement-breakpoint
CREATE INDEX "cells_row_order_idx" ON "cells" USING btree ("row_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "cells_org_order_idx" ON "cells" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "record_columns_table_order_idx" ON "record_columns" USING btree ("table_sid","order","sid");--> statement-breakpoint
CREATE INDEX "record_columns_org_idx" ON "record_columns" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "credit_ledger_org_idx" ON "credit_ledger" USING btree ("organization_sid","id");--> statement-breakpoint
CREATE UNIQUE INDEX "project_members_project_personnel_key" ON "project_members" USING btree ("project_sid","personnel_sid");--> statement-breakpoint
CREATE INDEX "project_members_personnel_idx" ON "project_members" USING btree ("personnel_sid");--> statement-breakpoint
CREATE INDEX "projects_org_order_idx" ON "projects" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "record_rows_org_order_idx" ON "record_rows" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "record_rows_table_order_idx" ON "record_rows" USING btree ("table_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "record_rows_project_order_idx" ON "record_rows" USING btree ("project_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "record_tables_org_order_idx" ON "record_tables" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE UNIQUE INDEX "versions_row_version_key" ON "versions" USING btree ("row_sid","version");--> statement-breakpoint
CREATE INDEX "versions_org_order_idx" ON "versions" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "widgets_org_order_idx" ON "widgets" USING btree ("organization_sid","date_created","sid");