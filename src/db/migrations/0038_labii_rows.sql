CREATE TABLE "record_row_projects" (
	"row_sid" text NOT NULL,
	"project_sid" text NOT NULL,
	"organization_sid" text NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "record_row_projects_row_sid_project_sid_pk" PRIMARY KEY("row_sid","project_sid")
);
--> statement-breakpoint
CREATE TABLE "sections" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"row_sid" text NOT NULL,
	"table_sid" text NOT NULL,
	"widget_sid" text,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"order" integer NOT NULL,
	"data" text DEFAULT 'null' NOT NULL,
	"is_archived" boolean DEFAULT false NOT NULL,
	"version" integer DEFAULT 0 NOT NULL,
	"created_by" text,
	"updated_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "record_rows" ADD COLUMN "uid" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "record_rows" ADD COLUMN "is_template" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "record_rows" ADD COLUMN "open_to_organization" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "record_rows" ADD COLUMN "metadata" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "record_rows" ADD COLUMN "updated_by" text;--> statement-breakpoint
ALTER TABLE "record_tables" ADD COLUMN "uid_counter" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "record_row_projects" ADD CONSTRAINT "record_row_projects_row_sid_record_rows_sid_fk" FOREIGN KEY ("row_sid") REFERENCES "public"."record_rows"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_row_projects" ADD CONSTRAINT "record_row_projects_project_sid_projects_sid_fk" FOREIGN KEY ("project_sid") REFERENCES "public"."projects"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_row_projects" ADD CONSTRAINT "record_row_projects_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sections" ADD CONSTRAINT "sections_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sections" ADD CONSTRAINT "sections_row_sid_record_rows_sid_fk" FOREIGN KEY ("row_sid") REFERENCES "public"."record_rows"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sections" ADD CONSTRAINT "sections_table_sid_record_tables_sid_fk" FOREIGN KEY ("table_sid") REFERENCES "public"."record_tables"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sections" ADD CONSTRAINT "sections_widget_sid_widgets_sid_fk" FOREIGN KEY ("widget_sid") REFERENCES "public"."widgets"("sid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sections" ADD CONSTRAINT "sections_created_by_users_sid_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sections" ADD CONSTRAINT "sections_updated_by_users_sid_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "record_row_projects_project_idx" ON "record_row_projects" USING btree ("project_sid","row_sid");--> statement-breakpoint
CREATE INDEX "record_row_projects_org_idx" ON "record_row_projects" USING btree ("organization_sid","row_sid");--> statement-breakpoint
CREATE INDEX "sections_row_order_idx" ON "sections" USING btree ("row_sid","order","sid");--> statement-breakpoint
CREATE INDEX "sections_org_order_idx" ON "sections" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "sections_table_idx" ON "sections" USING btree ("table_sid","date_created","sid");--> statement-breakpoint
ALTER TABLE "record_rows" ADD CONSTRAINT "record_rows_updated_by_users_sid_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cells_column_order_idx" ON "cells" USING btree ("column_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "cells_column_filled_idx" ON "cells" USING btree ("column_sid","date_created","sid") WHERE data <> '';--> statement-breakpoint
CREATE UNIQUE INDEX "record_rows_table_uid_key" ON "record_rows" USING btree ("table_sid","uid") WHERE uid <> '';--> statement-breakpoint
CREATE INDEX "record_rows_org_uid_idx" ON "record_rows" USING btree ("organization_sid","uid");--> statement-breakpoint
CREATE INDEX "record_rows_uid_trgm_idx" ON "record_rows" USING gin ("uid" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "record_rows_created_by_idx" ON "record_rows" USING btree ("created_by","date_created","sid");--> statement-breakpoint
CREATE INDEX "record_rows_org_updated_idx" ON "record_rows" USING btree ("organization_sid","date_updated","sid");--> statement-breakpoint
CREATE INDEX "record_rows_org_archived_idx" ON "record_rows" USING btree ("organization_sid","is_archived","date_created","sid");
--> statement-breakpoint
-- The uid prefix a table without a unique_code of its own gives its rows: the first three
-- letters or digits of its name, in capitals ('REC' when it has none).
CREATE OR REPLACE FUNCTION records_table_code(p_name text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(nullif(upper(left(regexp_replace(p_name, '[^A-Za-z0-9]', '', 'g'), 3)), ''), 'REC')
$$;
--> statement-breakpoint
-- A row's uid: its table's prefix and its number, at least six digits.
CREATE OR REPLACE FUNCTION records_row_uid(p_code text, p_number integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT p_code || '-' || CASE WHEN p_number < 1000000 THEN lpad(p_number::text, 6, '0') ELSE p_number::text END
$$;
--> statement-breakpoint
-- The rows there are get their uids in the order they were created, and the latest version's author.
WITH numbered AS (
  SELECT r.sid, records_row_uid(coalesce(nullif(t.unique_code, ''), records_table_code(t.name)), row_number() OVER (PARTITION BY r.table_sid ORDER BY r.date_created, r.sid)::integer) AS uid
    FROM record_rows r JOIN record_tables t ON t.sid = r.table_sid)
UPDATE record_rows r SET uid = numbered.uid FROM numbered WHERE r.sid = numbered.sid;
--> statement-breakpoint
UPDATE record_tables t SET uid_counter = (SELECT count(*) FROM record_rows r WHERE r.table_sid = t.sid);
--> statement-breakpoint
UPDATE record_rows r SET updated_by = v.updated_by
  FROM versions v JOIN users u ON u.sid = v.updated_by
 WHERE v.row_sid = r.sid AND v.version = r.version;
--> statement-breakpoint
-- The data a version keeps (docs/versions.md): the row's fields, its cells by column sid and,
-- once it has any, its sections in order (each with its content as the JSON text written).
CREATE OR REPLACE FUNCTION records_row_data(p_row text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'name', r.name,
    'description', r.description,
    'is_locked', r.is_locked,
    'is_archived', r.is_archived,
    'cells', coalesce((SELECT jsonb_object_agg(c.column_sid, c.data) FROM cells c WHERE c.row_sid = r.sid), '{}'::jsonb))
    || coalesce((SELECT jsonb_build_object('sections', jsonb_agg(jsonb_build_object(
           'sid', s.sid, 'name', s.name, 'description', s.description, 'order', s."order", 'is_archived', s.is_archived, 'data', s.data)
           ORDER BY s."order", s.sid))
         FROM sections s WHERE s.row_sid = r.sid HAVING count(*) > 0), '{}'::jsonb)
  FROM record_rows r WHERE r.sid = p_row
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION records_version_text(p_row text, p_version integer, p_previous text, p_data jsonb, p_user text, p_date text)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT '{"data":{"cells":'
      || coalesce((SELECT '{' || string_agg(to_jsonb(e.key)::text || ':' || e.value::text, ',' ORDER BY e.key COLLATE "C") || '}'
                     FROM jsonb_each(p_data -> 'cells') e), '{}')
      || ',"description":' || coalesce((p_data -> 'description')::text, 'null')
      || ',"is_archived":' || coalesce((p_data -> 'is_archived')::text, 'null')
      || ',"is_locked":' || coalesce((p_data -> 'is_locked')::text, 'null')
      || ',"name":' || coalesce((p_data -> 'name')::text, 'null')
      || CASE WHEN p_data ? 'sections' THEN ',"sections":' || records_canonical_json(p_data -> 'sections') ELSE '' END
      || '},"date_created":' || coalesce(to_jsonb(p_date)::text, 'null')
      || ',"previousHash":' || coalesce(to_jsonb(p_previous)::text, 'null')
      || ',"row":' || coalesce(to_jsonb(p_row)::text, 'null')
      || ',"updated_by":' || coalesce(to_jsonb(p_user)::text, 'null')
      || ',"version":' || coalesce(p_version::text, 'null')
      || '}'
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION records_append_version(p_sid text, p_row text, p_user text, p_message text)
RETURNS TABLE (version integer, hash text)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  d jsonb;
  ts timestamptz := clock_timestamp();
  ts_text text;
  v integer;
  h text;
BEGIN
  SELECT rr.organization_sid, rr.version, rr.last_hash INTO r FROM record_rows rr WHERE rr.sid = p_row FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'row % does not exist', p_row USING ERRCODE = 'P0002';
  END IF;
  d := records_row_data(p_row);
  v := r.version + 1;
  ts := date_trunc('microseconds', ts);
  ts_text := to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
  h := encode(sha256(convert_to(records_version_text(p_row, v, r.last_hash, d, p_user, ts_text), 'UTF8')), 'hex');
  INSERT INTO versions (sid, organization_sid, row_sid, version, hash, previous_hash, data, activity_message, updated_by, date_created, date_updated)
  VALUES (p_sid, r.organization_sid, p_row, v, h, r.last_hash, d, p_message, p_user, ts, ts);
  UPDATE record_rows SET version = v, last_hash = h, date_updated = ts,
         updated_by = CASE WHEN EXISTS (SELECT 1 FROM users u WHERE u.sid = p_user) THEN p_user ELSE updated_by END
   WHERE sid = p_row;
  RETURN QUERY SELECT v, h;
END;
$$;
