-- Every statement one cell PATCH sends, in order and as the service sends them: the
-- authentication, finding the cell and the caller's access to its row, the write
-- transaction of bench/cell-patch.sql, and reading the changed cell back. It is what
-- PostgreSQL would do for the request with no application in between (12 round trips).
-- Variables (pgbench -D): org, user, personnel (the admin's), token_hash (SHA-256 of
-- the admin's session token), price, rows, cols.
\set n random(1, :rows)
\set c random(1, :cols)
\set cell (:n - 1) * :cols + :c
SELECT u.sid AS user_sid, u.email, u.first_name, u.last_name, c.sid, c.kind,
       c.last_used_at < now() - interval '60 seconds' AS stale
  FROM credentials c JOIN users u ON u.sid = c.user_sid
 WHERE c.key_hash = ':token_hash' AND u.is_active
   AND (c.kind = 'apikey' OR c.last_used_at > now() - make_interval(mins => 30));
SELECT "cells"."row_sid", "record_columns"."name", "widgets"."price", "widgets"."addable_at_readonly"
  FROM "cells" INNER JOIN "record_columns" ON "record_columns"."sid" = "cells"."column_sid"
 INNER JOIN "widgets" ON "widgets"."sid" = "cells"."widget_sid"
 WHERE "cells"."sid" = 'cel' || lpad(:cell::text, 13, '0');
SELECT r.sid, r.name, r.organization_sid, r.table_sid, r.project_sid, r.is_locked, r.is_archived,
       o.name AS organization_name, p.sid AS personnel_sid, p.is_administrator, p.is_archived AS personnel_archived,
       (p.date_end IS NULL OR p.date_end >= CURRENT_DATE) AS is_current, pm.permission
  FROM record_rows r
  JOIN organizations o ON o.sid = r.organization_sid
  LEFT JOIN personnel p ON p.organization_sid = r.organization_sid AND p.user_sid = ':user'
  LEFT JOIN project_members pm ON pm.project_sid = r.project_sid AND pm.personnel_sid = p.sid
 WHERE r.sid = 'row' || lpad(:n::text, 13, '0');
BEGIN;
SELECT r.sid, r.name, r.organization_sid, r.table_sid, r.project_sid, r.is_locked, r.is_archived,
       o.name AS organization_name, p.sid AS personnel_sid, p.is_administrator, p.is_archived AS personnel_archived,
       (p.date_end IS NULL OR p.date_end >= CURRENT_DATE) AS is_current, pm.permission
  FROM record_rows r
  JOIN organizations o ON o.sid = r.organization_sid
  LEFT JOIN personnel p ON p.organization_sid = r.organization_sid AND p.user_sid = ':user'
  LEFT JOIN project_members pm ON pm.project_sid = r.project_sid AND pm.personnel_sid = p.sid
 WHERE r.sid = 'row' || lpad(:n::text, 13, '0')
 FOR UPDATE OF r;
SELECT "data" FROM "cells" WHERE "cells"."sid" = 'cel' || lpad(:cell::text, 13, '0');
UPDATE "cells" SET "data" = md5(random()::text), "updated_by" = ':user', "date_updated" = now() WHERE "cells"."sid" = 'cel' || lpad(:cell::text, 13, '0');
UPDATE organizations SET credits = credits - :price::numeric
 WHERE sid = ':org' AND credits >= :price::numeric
RETURNING credits \gset
INSERT INTO credit_ledger (sid, organization_sid, amount, balance_after, reason, cell_sid, row_sid, user_sid)
VALUES ('pgl' || substr(md5(random()::text), 1, 13), ':org', -:price::numeric, :credits, 'cell changed in column Column ' || :c,
        'cel' || lpad(:cell::text, 13, '0'), 'row' || lpad(:n::text, 13, '0'), ':user');
SELECT version FROM records_append_version('pgv' || substr(md5(random()::text), 1, 13), 'row' || lpad(:n::text, 13, '0'), ':user', 'Changed the cell of Column ' || :c);
COMMIT;
SELECT "cells"."sid", "cells"."data", "cells"."organization_sid",
       json_build_object('sid', "record_rows"."sid", 'name', "record_rows"."name"),
       json_build_object('sid', "record_columns"."sid", 'name', "record_columns"."name"),
       json_build_object('sid', "widgets"."sid", 'name', "widgets"."name"),
       "widgets"."price", "widgets"."addable_at_readonly", "record_rows"."is_locked", "record_rows"."is_archived",
       to_char("cells"."date_created" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
       to_char("cells"."date_updated" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
       "project_members"."permission"
  FROM "cells"
 INNER JOIN "record_rows" ON "record_rows"."sid" = "cells"."row_sid"
 INNER JOIN "record_columns" ON "record_columns"."sid" = "cells"."column_sid"
 INNER JOIN "widgets" ON "widgets"."sid" = "cells"."widget_sid"
  LEFT JOIN "project_members" ON ("project_members"."project_sid" = "record_rows"."project_sid" AND "project_members"."personnel_sid" = ':personnel')
 WHERE "cells"."sid" = 'cel' || lpad(:cell::text, 13, '0');
