-- The grid's `search` (row name contains) uses a trigram index: pg_trgm ships with PostgreSQL (contrib, a trusted extension) and PGlite.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "record_rows_table_name_idx" ON "record_rows" USING btree ("table_sid","name","sid");--> statement-breakpoint
CREATE INDEX "record_rows_table_updated_idx" ON "record_rows" USING btree ("table_sid","date_updated","sid");--> statement-breakpoint
CREATE INDEX "record_rows_table_state_idx" ON "record_rows" USING btree ("table_sid","is_archived","is_locked","date_created","sid");--> statement-breakpoint
CREATE INDEX "record_rows_name_trgm_idx" ON "record_rows" USING gin ("name" gin_trgm_ops);
