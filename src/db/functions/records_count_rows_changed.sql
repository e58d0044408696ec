-- A row moved (organization, table, project) or its is_archived or is_locked changed: one
-- less where it was, one more where it is (records_count_rows_inserted says why counts).
CREATE OR REPLACE FUNCTION records_count_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO record_row_counts AS c (organization_sid, table_sid, project_sid, stripe, rows, archived, locked, archived_locked)
  SELECT d.organization_sid, d.table_sid, d.project_sid, pg_backend_pid() % 16, sum(d.n), sum(d.n * d.a), sum(d.n * d.l), sum(d.n * d.a * d.l)
    FROM (VALUES
      (OLD.organization_sid, OLD.table_sid, OLD.project_sid, -1, OLD.is_archived::int, OLD.is_locked::int),
      (NEW.organization_sid, NEW.table_sid, NEW.project_sid, 1, NEW.is_archived::int, NEW.is_locked::int)
    ) AS d(organization_sid, table_sid, project_sid, n, a, l)
   GROUP BY d.organization_sid, d.table_sid, d.project_sid ORDER BY d.table_sid, d.project_sid
  ON CONFLICT (table_sid, project_sid, stripe) DO UPDATE SET
    rows = c.rows + excluded.rows, archived = c.archived + excluded.archived,
    locked = c.locked + excluded.locked, archived_locked = c.archived_locked + excluded.archived_locked;
  RETURN NULL;
END;
$$;
