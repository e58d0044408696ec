-- Rows deleted: the counts of records_count_rows_inserted, taken away per statement.
CREATE OR REPLACE FUNCTION records_count_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO record_row_counts AS c (organization_sid, table_sid, project_sid, stripe, rows, archived, locked, archived_locked)
  SELECT o.organization_sid, o.table_sid, o.project_sid, pg_backend_pid() % 16, -count(*),
         -count(*) FILTER (WHERE o.is_archived), -count(*) FILTER (WHERE o.is_locked), -count(*) FILTER (WHERE o.is_archived AND o.is_locked)
    FROM old_rows o GROUP BY o.organization_sid, o.table_sid, o.project_sid ORDER BY o.table_sid, o.project_sid
  ON CONFLICT (table_sid, project_sid, stripe) DO UPDATE SET
    rows = c.rows + excluded.rows, archived = c.archived + excluded.archived,
    locked = c.locked + excluded.locked, archived_locked = c.archived_locked + excluded.archived_locked;
  RETURN NULL;
END;
$$;
