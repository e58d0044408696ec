-- The write transaction of one cell PATCH, statement for statement as the service sends
-- it (src/modules/cells/service.ts changeCell, rows/access.ts loadRowAccess with lock,
-- credits/service.ts debitCredits, versions/append.ts appendVersion), on a random seeded
-- cell. Variables (pgbench -D): org, user (the admin's user sid), price, rows, cols.
-- Seeded sids: row n = 'row' + n zero-padded to 16 characters; its cell in column c is
-- number (n - 1) * cols + c (bench/seed.ts).
\set n random(1, :rows)
\set c random(1, :cols)
\set cell (:n - 1) * :cols + :c
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
