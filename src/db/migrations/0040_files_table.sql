-- Labii's files table (issue 25): labii-sdk's upload() finds it by name_system = 'file' and
-- its columns by their widgets' sids, which are Labii's own: the file-path widget (a file
-- cell: its files' descriptors) and the file-size widget (a number). New organizations get
-- the table at creation (modules/files/files-table.ts); those there are get it here.
INSERT INTO widgets (sid, organization_sid, name, description, kind, price, addable_at_readonly, icon, notes, usecase, allow_multiple, is_readonly, is_public) VALUES
  ('JMPS0a40x5eLQV16afk', NULL, 'File path', 'Files, as Labii''s file-path widget: the cell lists their descriptors (name, size, media type, SHA-256, who uploaded them, when).', 'file', 0, false, 'file', 'The files table''s file column (labii-sdk upload()).', 'Instrument output, images, documents.', false, false, true),
  ('KNQT0a40x5fMRW27bgl', NULL, 'File size', 'The size of a file in bytes, as Labii''s file-size widget.', 'number', 0, false, 'hashtag', 'The files table''s size column (labii-sdk upload()).', 'A file''s size.', false, false, true)
ON CONFLICT (sid) DO NOTHING;
--> statement-breakpoint
-- The table's and its columns' sids are made from the organization's (md5: hex digits, 16 of them).
INSERT INTO record_tables (sid, organization_sid, name, name_singular, unique_code, description, icon, name_system, created_by)
  SELECT left(md5(o.sid || ':files-table'), 16), o.sid, 'Files', 'File',
         (SELECT CASE WHEN n = 1 THEN 'FIL' ELSE 'FIL-' || n END FROM generate_series(1, 1000) n
           WHERE NOT EXISTS (SELECT 1 FROM record_tables t WHERE t.organization_sid = o.sid
                               AND t.unique_code = CASE WHEN n = 1 THEN 'FIL' ELSE 'FIL-' || n END)
           ORDER BY n LIMIT 1),
         'Files uploaded to the organization (labii-sdk upload()).', 'file', 'file', o.created_by
    FROM organizations o
   WHERE NOT EXISTS (SELECT 1 FROM record_tables t WHERE t.organization_sid = o.sid AND t.name_system = 'file');
--> statement-breakpoint
INSERT INTO record_columns (sid, organization_sid, table_sid, widget_sid, name, name_system, "order")
  SELECT left(md5(t.organization_sid || ':files-path'), 16), t.organization_sid, t.sid, 'JMPS0a40x5eLQV16afk', 'File', 'file_path', 0
    FROM record_tables t WHERE t.sid = left(md5(t.organization_sid || ':files-table'), 16)
  UNION ALL
  SELECT left(md5(t.organization_sid || ':files-size'), 16), t.organization_sid, t.sid, 'KNQT0a40x5fMRW27bgl', 'Size', 'file_size', 1
    FROM record_tables t WHERE t.sid = left(md5(t.organization_sid || ':files-table'), 16);
--> statement-breakpoint
-- Thumbnails (issue 25): every object starts pending; the thumbnail job (jobs/thumbnails.ts) makes one for images.
CREATE TABLE "file_thumbnails" (
	"sha256" text PRIMARY KEY NOT NULL,
	"media_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "file_objects" ADD COLUMN "thumbnail_pending" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "file_thumbnails" ADD CONSTRAINT "file_thumbnails_sha256_file_objects_sha256_fk" FOREIGN KEY ("sha256") REFERENCES "public"."file_objects"("sha256") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "file_objects_thumbnail_pending_idx" ON "file_objects" USING btree ("date_stored") WHERE thumbnail_pending;