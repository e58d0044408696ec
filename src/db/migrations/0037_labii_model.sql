CREATE TABLE "team_members" (
	"team_sid" text NOT NULL,
	"personnel_sid" text NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_members_team_sid_personnel_sid_pk" PRIMARY KEY("team_sid","personnel_sid")
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"is_archived" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "record_columns" ADD COLUMN "description" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "record_columns" ADD COLUMN "default_value" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "record_columns" ADD COLUMN "is_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "record_columns" ADD COLUMN "is_hidden" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "record_columns" ADD COLUMN "is_archived" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "record_columns" ADD COLUMN "name_system" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "record_columns" ADD COLUMN "metadata" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "record_columns" ADD COLUMN "settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "username" text;--> statement-breakpoint
-- Each organization's handle from its name ("Acme Labs" -> "acme-labs"); a name taken
-- already (or shorter than 2 characters) gets the sid's start as well: unique, compared lower-case.
UPDATE "organizations" o SET "username" = CASE WHEN n.rn = 1 AND length(n.slug) >= 2 THEN n.slug ELSE ltrim(n.slug || '-' || lower(left(o."sid", 10)), '-') END
  FROM (SELECT "sid", slug, row_number() OVER (PARTITION BY slug ORDER BY "date_created", "sid") AS rn
          FROM (SELECT "sid", "date_created", left(trim(BOTH '-' FROM lower(regexp_replace("name", '[^A-Za-z0-9]+', '-', 'g'))), 40) AS slug
                  FROM "organizations") s) n
 WHERE n."sid" = o."sid";--> statement-breakpoint
ALTER TABLE "organizations" ALTER COLUMN "username" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "logo_icon" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "logo_wordmark" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "dashboard" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "metadata" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "should_receive_weekly_digest" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "updated_by" text;--> statement-breakpoint
ALTER TABLE "project_members" ADD COLUMN "team_sid" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "parent_sid" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "date_start" date;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "date_end" date;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "is_archived" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "open_to_organization" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "metadata" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "updated_by" text;--> statement-breakpoint
ALTER TABLE "steps" ADD COLUMN "parent_sid" text;--> statement-breakpoint
ALTER TABLE "steps" ADD COLUMN "redirect_to" text;--> statement-breakpoint
ALTER TABLE "steps" ADD COLUMN "color" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "record_tables" ADD COLUMN "name_singular" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "record_tables" ADD COLUMN "unique_code" text;--> statement-breakpoint
-- Each table's code from its name's first three letters or digits, upper-case ("Samples" -> "SAM";
-- none: "REC"); a code taken already in the organization gets "-2", "-3" ...
UPDATE "record_tables" t SET "unique_code" = CASE WHEN n.rn = 1 THEN n.base ELSE n.base || '-' || n.rn END, "name_singular" = t."name"
  FROM (SELECT "sid", base, row_number() OVER (PARTITION BY "organization_sid", base ORDER BY "date_created", "sid") AS rn
          FROM (SELECT "sid", "organization_sid", "date_created",
                       coalesce(nullif(upper(left(regexp_replace("name", '[^A-Za-z0-9]', '', 'g'), 3)), ''), 'REC') AS base
                  FROM "record_tables") s) n
 WHERE n."sid" = t."sid";--> statement-breakpoint
ALTER TABLE "record_tables" ALTER COLUMN "unique_code" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "record_tables" ADD COLUMN "icon" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "record_tables" ADD COLUMN "table_type" text DEFAULT 'record' NOT NULL;--> statement-breakpoint
ALTER TABLE "record_tables" ADD COLUMN "order" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "record_tables" ADD COLUMN "is_archived" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "record_tables" ADD COLUMN "name_system" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "record_tables" ADD COLUMN "metadata" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "widgets" ADD COLUMN "icon" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "widgets" ADD COLUMN "notes" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "widgets" ADD COLUMN "usecase" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "widgets" ADD COLUMN "documentation_url" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "widgets" ADD COLUMN "allow_multiple" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "widgets" ADD COLUMN "is_readonly" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "widgets" ADD COLUMN "is_public" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_team_sid_teams_sid_fk" FOREIGN KEY ("team_sid") REFERENCES "public"."teams"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_personnel_sid_personnel_sid_fk" FOREIGN KEY ("personnel_sid") REFERENCES "public"."personnel"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_created_by_users_sid_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "team_members_personnel_idx" ON "team_members" USING btree ("personnel_sid");--> statement-breakpoint
CREATE INDEX "teams_org_order_idx" ON "teams" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "teams_org_archived_idx" ON "teams" USING btree ("organization_sid","is_archived","date_created","sid");--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_updated_by_users_sid_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_team_sid_teams_sid_fk" FOREIGN KEY ("team_sid") REFERENCES "public"."teams"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_parent_sid_projects_sid_fk" FOREIGN KEY ("parent_sid") REFERENCES "public"."projects"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_updated_by_users_sid_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "record_columns_org_system_idx" ON "record_columns" USING btree ("organization_sid","name_system");--> statement-breakpoint
CREATE INDEX "record_columns_table_archived_idx" ON "record_columns" USING btree ("table_sid","is_archived","order","sid");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_username_key" ON "organizations" USING btree (lower("username"));--> statement-breakpoint
CREATE INDEX "project_members_team_idx" ON "project_members" USING btree ("team_sid");--> statement-breakpoint
CREATE INDEX "projects_org_archived_idx" ON "projects" USING btree ("organization_sid","is_archived","date_created","sid");--> statement-breakpoint
CREATE INDEX "projects_parent_idx" ON "projects" USING btree ("parent_sid");--> statement-breakpoint
CREATE UNIQUE INDEX "record_tables_org_code_key" ON "record_tables" USING btree ("organization_sid","unique_code");--> statement-breakpoint
CREATE INDEX "record_tables_org_system_idx" ON "record_tables" USING btree ("organization_sid","name_system","date_created","sid");--> statement-breakpoint
CREATE INDEX "record_tables_org_archived_idx" ON "record_tables" USING btree ("organization_sid","is_archived","date_created","sid");--> statement-breakpoint
-- Built-in widgets of the value kinds (widgets/kinds.ts checks what their cells hold), with Labii's catalogue fields.
INSERT INTO widgets (sid, organization_sid, name, description, kind, price, addable_at_readonly, icon, notes, usecase, allow_multiple, is_readonly, is_public) VALUES
  ('builtinWidgetNum', NULL, 'Number', 'A number, with the column''s unit.', 'number', 0, false, 'hashtag', 'Settings: {"unit": "mg"}.', 'Amounts, concentrations, measurements.', false, false, true),
  ('builtinWidgetDat', NULL, 'Date', 'A calendar date, YYYY-MM-DD.', 'date', 0, false, 'calendar', '', 'Due dates, dates received.', false, false, true),
  ('builtinWidgetCho', NULL, 'Single choice', 'One of the column''s choices.', 'choice', 0, false, 'list', 'Settings: {"choices": ["A", "B"]}.', 'Status, category.', false, false, true),
  ('builtinWidgetMul', NULL, 'Multiple choice', 'Some of the column''s choices, as a JSON list.', 'multiple_choice', 0, false, 'list-check', 'Settings: {"choices": ["A", "B"]}.', 'Tags, properties.', true, false, true),
  ('builtinWidgetFky', NULL, 'Record of another table', 'The sid of a record of the column''s table.', 'foreign_key', 0, false, 'link', 'Settings: {"table": "<table sid>"}.', 'A sample''s source, an order''s supplier.', false, false, true),
  ('builtinWidgetBar', NULL, 'Barcode / QR code', 'The text a barcode or QR code holds (at most 2953 bytes, no control characters).', 'barcode', 0, false, 'qrcode', '', 'Labels, tubes, boxes.', false, false, true),
  ('builtinWidgetRtx', NULL, 'Rich text', 'A rich-text document (ProseMirror/TipTap JSON).', 'rich_text', 0, false, 'align-left', '', 'Notes, protocols.', false, false, true);
