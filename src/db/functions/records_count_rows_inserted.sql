-- Exact row counts per table and project (issue 15, target 4), kept in the transaction
-- that writes the rows: a list's count sums a few counter rows instead of reading every
-- row of a 100,000-row table. Each writing connection adds to its own stripe
-- (pg_backend_pid() % 16), so concurrent row inserts into one table seldom wait for one
-- another's commit on a counter row. Inserts and deletes are counted per statement (a bulk
-- insert adds once per table and project); an update only when it moves a row or changes
-- is_archived or is_locked (a cell write updates its row's version, and is not slowed).
-- The triggers fire ALWAYS, also under session_replication_role = replica (bulk loads).
CREATE OR REPLACE FUNCTION records_count_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO record_row_counts AS c (organization_sid, table_sid, project_sid, stripe, rows, archived, locked, archived_locked)
  SELECT n.organization_sid, n.table_sid, n.project_sid, pg_backend_pid() % 16, count(*),
         count(*) FILTER (WHERE n.is_archived), count(*) FILTER (WHERE n.is_locked), count(*) FILTER (WHERE n.is_archived AND n.is_locked)
    FROM new_rows n GROUP BY n.organization_sid, n.table_sid, n.project_sid ORDER BY n.table_sid, n.project_sid
  ON CONFLICT (table_sid, project_sid, stripe) DO UPDATE SET
    rows = c.rows + excluded.rows, archived = c.archived + excluded.archived,
    locked = c.locked + excluded.locked, archived_locked = c.archived_locked + excluded.archived_locked;
  RETURN NULL;
END;
$$;
