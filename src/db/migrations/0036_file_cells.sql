ALTER TABLE "files" ADD COLUMN "row_sid" text;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_row_sid_record_rows_sid_fk" FOREIGN KEY ("row_sid") REFERENCES "public"."record_rows"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "files_row_order_idx" ON "files" USING btree ("row_sid","date_created","sid");--> statement-breakpoint
-- The built-in file widget (issue 25): a cell of a column with it holds files; its data is
-- the list of their descriptors (docs/versions.md, "File cells").
INSERT INTO widgets (sid, organization_sid, name, description, kind, price, addable_at_readonly) VALUES
  ('builtinWidgetFil', NULL, 'File', 'Files: the cell lists their descriptors (name, size, media type, SHA-256, who uploaded them, when).', 'file', 0, false)
ON CONFLICT (sid) DO NOTHING;
