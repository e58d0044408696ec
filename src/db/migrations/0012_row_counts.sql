CREATE TABLE "record_row_counts" (
	"organization_sid" text NOT NULL,
	"table_sid" text NOT NULL,
	"project_sid" text NOT NULL,
	"stripe" smallint NOT NULL,
	"rows" bigint DEFAULT 0 NOT NULL,
	"archived" bigint DEFAULT 0 NOT NULL,
	"locked" bigint DEFAULT 0 NOT NULL,
	"archived_locked" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "record_row_counts_table_sid_project_sid_stripe_pk" PRIMARY KEY("table_sid","project_sid","stripe")
);
--> statement-breakpoint
CREATE INDEX "record_row_counts_org_idx" ON "record_row_counts" USING btree ("organization_sid");--> statement-breakpoint
-- Exact row counts per table and project (issue 15, target 4), kept in the transaction
-- that writes the rows: a list's count sums a few counter rows instead of reading every
-- row of a 100,000-row table. Each writing connection adds to its own stripe
-- (pg_backend_pid() % 16), so concurrent row inserts into one table seldom wait for one
-- another's commit on a counter row. Inserts and deletes are counted per statement (a bulk
-- insert adds once per table and project); an update only when it moves a row or changes
-- is_archived or is_locked (a cell write updates its row's version, and is not slowed).
-- The triggers fire ALWAYS, also under session_replication_role = replica (bulk loads).
CREATE FUNCTION records_count_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint
CREATE FUNCTION records_count_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint
CREATE FUNCTION records_count_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
--> statement-breakpoint
-- No insert, delete or change of a row between the count below and the triggers.
LOCK TABLE record_rows IN SHARE ROW EXCLUSIVE MODE;
--> statement-breakpoint
CREATE TRIGGER record_rows_count_inserted AFTER INSERT ON record_rows REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION records_count_rows_inserted();
--> statement-breakpoint
CREATE TRIGGER record_rows_count_deleted AFTER DELETE ON record_rows REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION records_count_rows_deleted();
--> statement-breakpoint
CREATE TRIGGER record_rows_count_changed AFTER UPDATE OF organization_sid, table_sid, project_sid, is_archived, is_locked ON record_rows
  FOR EACH ROW WHEN (OLD.table_sid IS DISTINCT FROM NEW.table_sid OR OLD.project_sid IS DISTINCT FROM NEW.project_sid
    OR OLD.organization_sid IS DISTINCT FROM NEW.organization_sid
    OR OLD.is_archived IS DISTINCT FROM NEW.is_archived OR OLD.is_locked IS DISTINCT FROM NEW.is_locked)
  EXECUTE FUNCTION records_count_rows_changed();
--> statement-breakpoint
ALTER TABLE record_rows ENABLE ALWAYS TRIGGER record_rows_count_inserted;
--> statement-breakpoint
ALTER TABLE record_rows ENABLE ALWAYS TRIGGER record_rows_count_deleted;
--> statement-breakpoint
ALTER TABLE record_rows ENABLE ALWAYS TRIGGER record_rows_count_changed;
--> statement-breakpoint
-- The rows already there, counted once (stripe 0).
INSERT INTO record_row_counts (organization_sid, table_sid, project_sid, stripe, rows, archived, locked, archived_locked)
SELECT organization_sid, table_sid, project_sid, 0, count(*),
       count(*) FILTER (WHERE is_archived), count(*) FILTER (WHERE is_locked), count(*) FILTER (WHERE is_archived AND is_locked)
  FROM record_rows GROUP BY organization_sid, table_sid, project_sid;
