-- The write transaction of one cell PATCH, statement for statement as the service sends
-- it (src/modules/records/commands/cell-update.ts: the cell, its row locked (records/lock.ts lockRow) and the caller's
-- standing in one query; records/cells.ts changeLocked: the row's size with the new data and,
-- within ROW_MAX_BYTES, records_set_cell (the cell and the row's version) and the live
-- event's payload and, when the cell changed, records_debit (the debit of the connection's
-- credit shard and its ledger entry), in one statement), on a random seeded cell; after the
-- COMMIT, the event's pg_notify in a statement of its own (db/after-commit.ts: the service
-- sends the events of every write committed meanwhile in one; here each PATCH its own). The
-- service's BEGIN also sets plan_cache_mode = auto for the transaction (db/postgres.ts),
-- which pgbench's sessions have already. The record-change
-- lookup is skipped as the service skips it for the row's own creator, and the data
-- has no "@", so no mention lookup either.
-- Variables (pgbench -D): org, user (the admin's user sid), price, rows, cols.
-- Seeded sids: row n = 'row' + n zero-padded to 16 characters; its cell in column c is
-- number (n - 1) * cols + c (bench/seed.ts).
\set n random(1, :rows)
\set c random(1, :cols)
\set cell (:n - 1) * :cols + :c
BEGIN;
SELECT c.sid, c.data, to_char(c.date_created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS date_created,
       to_char(c.date_updated AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS date_updated,
       col.sid AS column_sid, col.name AS column_name, w.sid AS widget_sid, w.name AS widget_name, w.price, w.addable_at_readonly,
       r.sid AS row_sid, r.name AS row_name, r.organization_sid, r.table_sid, r.project_sid, r.is_locked, r.is_archived,
       r.created_by AS row_created_by, o.name AS organization_name,
       p.sid AS personnel_sid, p.is_administrator, p.is_archived AS personnel_archived,
       (p.date_end IS NULL OR p.date_end >= CURRENT_DATE) AS is_current, pm.permission
  FROM cells c
  JOIN record_columns col ON col.sid = c.column_sid
  JOIN widgets w ON w.sid = c.widget_sid
  JOIN record_rows r ON r.sid = c.row_sid
  JOIN organizations o ON o.sid = r.organization_sid
  LEFT JOIN personnel p ON p.organization_sid = r.organization_sid AND p.user_sid = ':user'
  LEFT JOIN project_members pm ON pm.project_sid = r.project_sid AND pm.personnel_sid = p.sid
 WHERE c.sid = 'cel' || lpad(:cell::text, 13, '0')
   FOR UPDATE OF r;
WITH size AS (
  SELECT (SELECT coalesce(sum(octet_length(to_jsonb(c.data)::text)), 0) FROM cells c
           WHERE c.row_sid = r.sid AND c.column_sid IS DISTINCT FROM (SELECT x.column_sid FROM cells x WHERE x.sid = 'cel' || lpad(:cell::text, 13, '0')))
       + 34 + octet_length(to_jsonb(r.name)::text) + octet_length(to_jsonb(r.description)::text) AS bytes
    FROM record_rows r WHERE r.sid = 'row' || lpad(:n::text, 13, '0'))
SELECT size.bytes, s.new_version, s.previous_data, s.updated_at, s.event,
       CASE WHEN s.new_version IS NOT NULL THEN records_debit(':org', :price::numeric, 'pgl' || substr(md5(random()::text), 1, 13), 'cell changed in column Column ' || :c,
         'cel' || lpad(:cell::text, 13, '0'), 'row' || lpad(:n::text, 13, '0'), ':user') IS NOT NULL END AS paid
  FROM size LEFT JOIN LATERAL (
    SELECT s.*, CASE WHEN s.new_version IS NOT NULL THEN json_build_object(
        'kind', 'cell', 'organization', ':org', 'row', 'row' || lpad(:n::text, 13, '0'), 'version', s.new_version,
        'by', (SELECT json_build_object('sid', p.sid, 'name', p.first_name || ' ' || p.last_name) FROM personnel p WHERE p.organization_sid = ':org' AND p.user_sid = ':user'),
        'date_updated', s.updated_at, 'cell', 'cel' || lpad(:cell::text, 13, '0'), 'created', false, 'data', 'benchmark data', 'data_omitted', false)::text END AS event
      FROM records_set_cell('cel' || lpad(:cell::text, 13, '0'), md5(random()::text), ':user', 'pgv' || substr(md5(random()::text), 1, 13), 'Changed the cell of Column ' || :c) s
     WHERE size.bytes <= 1048576 OFFSET 0) s ON true;
COMMIT;
SELECT set_config('synchronous_commit', 'off', true), count(pg_notify(e->>0, e->>1))
  FROM json_array_elements(json_build_array(json_build_array('records_rows', json_build_object('kind', 'cell', 'row', 'row' || lpad(:n::text, 13, '0'), 'data', 'benchmark data')::text))) AS e;
