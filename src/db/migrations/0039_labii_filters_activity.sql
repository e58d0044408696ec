CREATE TABLE "activities" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "activities_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_sid" text NOT NULL,
	"user_sid" text,
	"model" text NOT NULL,
	"object_sid" text NOT NULL,
	"target" text DEFAULT '' NOT NULL,
	"action" text NOT NULL,
	"field" text DEFAULT '' NOT NULL,
	"new_data" text DEFAULT '' NOT NULL,
	"version" integer,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
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
ALTER TABLE "activities" ADD CONSTRAINT "activities_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_filters" ADD CONSTRAINT "saved_filters_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_filters" ADD CONSTRAINT "saved_filters_table_sid_record_tables_sid_fk" FOREIGN KEY ("table_sid") REFERENCES "public"."record_tables"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_filters" ADD CONSTRAINT "saved_filters_owner_sid_personnel_sid_fk" FOREIGN KEY ("owner_sid") REFERENCES "public"."personnel"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activities_org_idx" ON "activities" USING btree ("organization_sid","id");--> statement-breakpoint
CREATE INDEX "activities_org_user_idx" ON "activities" USING btree ("organization_sid","user_sid","id");--> statement-breakpoint
CREATE INDEX "activities_org_model_idx" ON "activities" USING btree ("organization_sid","model","id");--> statement-breakpoint
CREATE INDEX "activities_object_idx" ON "activities" USING btree ("object_sid","id");--> statement-breakpoint
CREATE INDEX "activities_org_date_idx" ON "activities" USING btree ("organization_sid","date_created");--> statement-breakpoint
CREATE INDEX "saved_filters_org_order_idx" ON "saved_filters" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "saved_filters_table_order_idx" ON "saved_filters" USING btree ("table_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "saved_filters_users_idx" ON "saved_filters" USING gin ("users");--> statement-breakpoint
CREATE INDEX "projects_org_open_idx" ON "projects" USING btree ("organization_sid") WHERE open_to_organization;--> statement-breakpoint
CREATE INDEX "record_rows_org_open_idx" ON "record_rows" USING btree ("organization_sid","table_sid") WHERE open_to_organization;--> statement-breakpoint
-- The activity log (issue 24), written in the transaction of the write it records: each
-- version of a row (a row's creation, its cells, sections, fields and states all append
-- one), and each project created or changed. Statement-level, over the transition tables,
-- so an import of many rows adds its lines in one statement. They fire ALWAYS, like the
-- row counters.
CREATE OR REPLACE FUNCTION records_activity_of_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO activities (organization_sid, user_sid, model, object_sid, target, action, field, version, date_created)
  SELECT v.organization_sid, v.updated_by, 'row', v.row_sid, coalesce(r.name, ''),
         CASE WHEN v.version = 1 THEN 'Created' ELSE 'Updated' END, v.activity_message, v.version, v.date_created
    FROM new_versions v LEFT JOIN record_rows r ON r.sid = v.row_sid
   ORDER BY v.date_created, v.version;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER records_activity_of_versions AFTER INSERT ON versions
  REFERENCING NEW TABLE AS new_versions FOR EACH STATEMENT EXECUTE FUNCTION records_activity_of_versions();
--> statement-breakpoint
ALTER TABLE versions ENABLE ALWAYS TRIGGER records_activity_of_versions;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION records_activity_of_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO activities (organization_sid, user_sid, model, object_sid, target, action, field)
    SELECT n.organization_sid, n.created_by, 'project', n.sid, n.name, 'Created', '' FROM new_projects n;
  ELSE
    INSERT INTO activities (organization_sid, user_sid, model, object_sid, target, action, field)
    SELECT c.organization_sid, c.updated_by, 'project', c.sid, c.name, 'Updated', c.changed
      FROM (SELECT n.organization_sid, n.updated_by, n.sid, n.name, concat_ws(', ',
             CASE WHEN n.name IS DISTINCT FROM o.name THEN 'name' END,
             CASE WHEN n.description IS DISTINCT FROM o.description THEN 'description' END,
             CASE WHEN n.parent_sid IS DISTINCT FROM o.parent_sid THEN 'parent' END,
             CASE WHEN n.date_start IS DISTINCT FROM o.date_start THEN 'date_start' END,
             CASE WHEN n.date_end IS DISTINCT FROM o.date_end THEN 'date_end' END,
             CASE WHEN n.is_archived IS DISTINCT FROM o.is_archived THEN 'is_archived' END,
             CASE WHEN n.open_to_organization IS DISTINCT FROM o.open_to_organization THEN 'open_to_organization' END,
             CASE WHEN n.metadata IS DISTINCT FROM o.metadata THEN 'metadata' END) AS changed
              FROM new_projects n JOIN old_projects o ON o.sid = n.sid) c
     WHERE c.changed <> '';
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER records_activity_of_new_projects AFTER INSERT ON projects
  REFERENCING NEW TABLE AS new_projects FOR EACH STATEMENT EXECUTE FUNCTION records_activity_of_projects();
--> statement-breakpoint
CREATE TRIGGER records_activity_of_changed_projects AFTER UPDATE ON projects
  REFERENCING OLD TABLE AS old_projects NEW TABLE AS new_projects FOR EACH STATEMENT EXECUTE FUNCTION records_activity_of_projects();
--> statement-breakpoint
ALTER TABLE projects ENABLE ALWAYS TRIGGER records_activity_of_new_projects;
--> statement-breakpoint
ALTER TABLE projects ENABLE ALWAYS TRIGGER records_activity_of_changed_projects;
