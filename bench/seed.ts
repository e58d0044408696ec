// Seeding the benchmark's organization.
//
// What the service's own logic must decide (the admin account, the organization and
// its credits, the session token, the priced widget) goes through HTTP; the bulk
// (personnel, projects, members, tables, columns, rows, cells) is inserted with SQL,
// and every version is appended by the service's own records_append_version(), so the
// hash chains are the real thing.
//
// Seeded records get predictable sids, so that scenarios and the pgbench script can pick
// one from a number: prefix (3 letters) + the number, zero-padded to 16 characters.
import { randomBytes, createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { call, expect } from './lib/http.js';

export interface SeedSize {
  personnel: number; // including the admin
  projects: number;
  tables: number;
  columnsPerTable: number;
  rows: number;
  /**
   * rows of table 1 (every (rows / smallTableRows)-th row); table 2 has the rest and the
   * long row, further tables none: a page of the small table against one of the big table
   */
  smallTableRows: number;
  longRowVersions: number;
  /** personnel (from number 1) given a session token, to read their notification inbox */
  recipients: number;
  /** rows of table 3 without cells: every cell POST of the benchmark fills one of their empty cells */
  postRows: number;
  /** workflows of the organization (page 1 of their list is measured) and steps of the first one */
  workflows: number;
  stepsPerWorkflow: number;
}

export const FULL_SIZE: SeedSize = {
  personnel: 1000, projects: 20, tables: 3, columnsPerTable: 5, rows: 100_000, smallTableRows: 1_000, longRowVersions: 10_000, recipients: 10,
  postRows: 20_000, workflows: 30, stepsPerWorkflow: 10,
};
export const QUICK_SIZE: SeedSize = {
  personnel: 1000, projects: 20, tables: 3, columnsPerTable: 5, rows: 10_000, smallTableRows: 100, longRowVersions: 2_000, recipients: 10,
  postRows: 2_000, workflows: 30, stepsPerWorkflow: 10,
};

/** The predictable sid of a seeded record: `sid('row', 42)` → 'row0000000000042'. */
export function sid(prefix: string, n: number): string {
  return prefix + String(n).padStart(16 - prefix.length, '0');
}

/** The same, as SQL over an integer expression. */
const sqlSid = (prefix: string, expr: string) => `'${prefix}' || lpad((${expr})::text, ${16 - prefix.length}, '0')`;

export interface Recipient {
  sid: string;
  name: string;
  token: string;
}

export interface Organization {
  base: string;
  token: string;
  email: string;
  userSid: string;
  orgSid: string;
  personnelSid: string;
  widgetSid: string;
  price: string;
}

export interface SeededPostgres extends Organization {
  size: SeedSize;
  longRow: string;
  /** table 1 (size.smallTableRows rows) and table 2 (the rest, and the long row) */
  smallTable: { sid: string; rows: number };
  bigTable: { sid: string; rows: number };
  /** table 3: `size.postRows` rows ('rwp' sids) without cells, for cell POSTs */
  postTable: { sid: string; rows: number };
  /** the first workflow, whose `size.stepsPerWorkflow` steps are listed */
  workflowSid: string;
  recipients: Recipient[];
  seconds: { http: number; bulk: number; versions: number; vacuum: number; total: number };
}

export interface SeededEmbedded extends Organization {
  rows: string[];
  cells: string[];
  seconds: number;
}

/** Proves `email` with the link the service mailed to it (an .eml file in `mailDir`, no SMTP_URL). */
async function proveEmail(base: string, email: string, mailDir: string): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    const names = fs.existsSync(mailDir) ? fs.readdirSync(mailDir).filter((n) => n.endsWith('.eml')) : [];
    for (const name of names) {
      const text = fs.readFileSync(path.join(mailDir, name), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/gi, '=');
      const tag = text.includes(email) ? /\/accounts\/verifyemail\/\?tag=([A-Za-z0-9_-]+)/.exec(text)?.[1] : undefined;
      if (tag) {
        await expect(base, 200, 'POST', `/accounts/verifyemail/?tag=${tag}`, {});
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no proof mail to ${email} in ${mailDir}`);
}

/** The admin (email proved), their organization (with INITIAL_CREDITS), a session token and a priced widget, through HTTP. */
export async function createOrganization(base: string, label: string, mailDir: string): Promise<Organization> {
  const email = `admin-${label}-${process.pid}@bench.example`;
  const password = 'bench-password-' + randomBytes(8).toString('hex');
  await expect(base, 201, 'POST', '/accounts/signup/', {
    body: { email, password, first_name: 'Bench', last_name: 'Admin' },
  });
  await proveEmail(base, email, mailDir);
  const { token, user } = await expect(base, 200, 'POST', '/accounts/auth/', { body: { username: email, password } });
  const org = await expect(base, 201, 'POST', `/organizations/organization/list/user/${user.sid}/detail/`, {
    token, body: { name: 'Benchmark Lab', description: 'A realistic organization for the benchmark.' },
  });
  const price = '0.01';
  const widget = await expect(base, 201, 'POST', `/widgets/widget/list/organization/${org.sid}/detail/`, {
    token, body: { name: 'Measurement', description: 'A priced widget: each cell write costs $0.01.', price },
  });
  const people = await expect(base, 200, 'GET', `/organizations/personnel/list/organization/${org.sid}/list/`, { token });
  const me = people.results.find((p: { email: string }) => p.email === email);
  if (!me) throw new Error('the admin is not in the personnel list of their organization');
  return { base, token, email, userSid: user.sid, orgSid: org.sid, personnelSid: me.sid, widgetSid: widget.sid, price };
}

/**
 * Seeds the PostgreSQL organization: the HTTP part, then the bulk in SQL on `pool`
 * (the benchmark's own connections to the same database).
 */
export async function seedPostgres(base: string, pool: pg.Pool, size: SeedSize, log: (line: string) => void, mailDir: string): Promise<SeededPostgres> {
  const started = Date.now();
  const org = await createOrganization(base, 'pg', mailDir);
  const httpDone = Date.now();
  const { orgSid, userSid: admin, widgetSid } = org;
  const q = async (text: string, values: unknown[] = []) => (await pool.query(text, values)).rowCount;
  // The big statements run without the foreign-key triggers (session_replication_role =
  // replica), three times faster: every reference is right by construction, and nothing
  // measured depends on how the seed was written.
  const bulk = async (text: string, values: unknown[] = []) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL session_replication_role = replica');
      const { rowCount } = await client.query(text, values);
      await client.query('COMMIT');
      return rowCount;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  };
  const others = size.personnel - 1;

  // Proven accounts, as if each had followed the link mailed to it (an unproven one may do nothing else).
  await q(`INSERT INTO users (sid, email, email_key, first_name, last_name, email_verified_at)
    SELECT ${sqlSid('usr', 'i')}, 'person' || i || '@bench.example', 'person' || i || '@bench.example', 'First' || i, 'Last' || i, now()
      FROM generate_series(1, $1) i`, [others]);
  await q(`INSERT INTO proven_addresses (user_sid, email) SELECT ${sqlSid('usr', 'i')}, 'person' || i || '@bench.example' FROM generate_series(1, $1) i`, [others]);
  await q(`INSERT INTO personnel (sid, organization_sid, user_sid, email, first_name, last_name, title, updated_by)
    SELECT ${sqlSid('per', 'i')}, $2, ${sqlSid('usr', 'i')}, 'person' || i || '@bench.example', 'First' || i, 'Last' || i,
           (ARRAY['Research Associate', 'Scientist', 'Technician', 'Postdoc'])[1 + i % 4], $3
      FROM generate_series(1, $1) i`, [others, orgSid, admin]);
  await q(`INSERT INTO projects (sid, organization_sid, name, description, created_by)
    SELECT ${sqlSid('prj', 'p')}, $2, 'Project ' || p, 'Benchmark project ' || p, $3 FROM generate_series(1, $1) p`,
  [size.projects, orgSid, admin]);
  // The admin is Project Admin everywhere (so they may write cells); every other member edits or views one project.
  await q(`INSERT INTO project_members (sid, project_sid, personnel_sid, permission)
    SELECT ${sqlSid('pma', 'p')}, ${sqlSid('prj', 'p')}, $2, 'admin' FROM generate_series(1, $1) p
    UNION ALL
    SELECT ${sqlSid('pmb', 'i')}, ${sqlSid('prj', `((i - 1) % $1) + 1`)}, ${sqlSid('per', 'i')}, CASE WHEN i % 3 = 0 THEN 'view' ELSE 'edit' END
      FROM generate_series(1, $3) i`, [size.projects, org.personnelSid, others]);
  await q(`INSERT INTO record_tables (sid, organization_sid, name, unique_code, description, created_by)
    SELECT ${sqlSid('tbl', 't')}, $2, 'Table ' || t, 'T' || t, 'Benchmark table ' || t, $3 FROM generate_series(1, $1) t`,
  [size.tables, orgSid, admin]);
  await q(`INSERT INTO record_columns (sid, organization_sid, table_sid, widget_sid, name, "order")
    SELECT ${sqlSid('col', 't * 100 + c')}, $3, ${sqlSid('tbl', 't')}, $4, 'Column ' || c, c
      FROM generate_series(1, $1) t, generate_series(1, $2) c`, [size.tables, size.columnsPerTable, orgSid, widgetSid]);
  // Row n is in table 1 when n is a multiple of `stride` (smallTableRows rows, spread
  // over the whole insertion order as a table's rows are), in table 2 otherwise, and in
  // project ((n-1) % projects) + 1; its cell in column c is number (n-1) * columnsPerTable + c.
  // The long row is table 2, project 1.
  // Rows and cells in two halves on two connections (the foreign-key checks are most of the time).
  const stride = Math.round(size.rows / size.smallTableRows);
  const tableOf = (n: string) => `CASE WHEN ${n} % ${stride} = 0 THEN 1 ELSE 2 END`;
  const half = Math.ceil(size.rows / 2);
  const insertRows = (from: number, to: number) => bulk(`INSERT INTO record_rows (sid, organization_sid, table_sid, project_sid, name, description, created_by)
    SELECT ${sqlSid('row', 'n')}, $4, ${sqlSid('tbl', tableOf('n'))}, ${sqlSid('prj', '((n - 1) % $3) + 1')},
           'Sample ' || n, 'Seeded by the benchmark.', $5
      FROM generate_series($1::int, $2::int) n`, [from, to, size.projects, orgSid, admin]);
  await Promise.all([insertRows(1, half), insertRows(half + 1, size.rows)]);
  await q(`INSERT INTO record_rows (sid, organization_sid, table_sid, project_sid, name, description, created_by)
    VALUES ('${sid('lng', 1)}', $1, '${sid('tbl', 2)}', '${sid('prj', 1)}', 'Long history', 'One row with many versions.', $2)`, [orgSid, admin]);
  const insertCells = (from: number, to: number) => bulk(`INSERT INTO cells (sid, organization_sid, row_sid, column_sid, widget_sid, data, created_by, updated_by)
    SELECT ${sqlSid('cel', '(n - 1) * $3 + c')}, $4, ${sqlSid('row', 'n')}, ${sqlSid('col', `(${tableOf('n')}) * 100 + c`)}, $5,
           'value ' || n || '.' || c, $6, $6
      FROM generate_series($1::int, $2::int) n, generate_series(1, $3::int) c`,
  [from, to, size.columnsPerTable, orgSid, widgetSid, admin]);
  await Promise.all([insertCells(1, half), insertCells(half + 1, size.rows)]);
  await q(`INSERT INTO cells (sid, organization_sid, row_sid, column_sid, widget_sid, data, created_by, updated_by)
    SELECT ${sqlSid('lnc', 'c')}, $1, '${sid('lng', 1)}', ${sqlSid('col', '200 + c')}, $2, 'reading 0', $3, $3
      FROM generate_series(1, $4::int) c`, [orgSid, widgetSid, admin, size.columnsPerTable]);
  // Table 3: rows without cells (project 1), whose empty cells the cell POSTs fill.
  await bulk(`INSERT INTO record_rows (sid, organization_sid, table_sid, project_sid, name, description, created_by)
    SELECT ${sqlSid('rwp', 'n')}, $2, '${sid('tbl', 3)}', '${sid('prj', 1)}', 'Empty ' || n, 'Cells are posted into it.', $3
      FROM generate_series(1, $1::int) n`, [size.postRows, orgSid, admin]);
  const bulkDone = Date.now();
  log(`  bulk insert: ${((bulkDone - httpDone) / 1000).toFixed(1)} s`);

  // Version 1 of every row, and the long row's history (one cell changed per version),
  // on three connections at once.
  const firstVersions = (from: number, to: number) => bulk(`SELECT count(*) FROM (
      SELECT records_append_version(${sqlSid('ver', 'n')}, ${sqlSid('row', 'n')}, $3, 'Created the row') FROM generate_series($1::int, $2::int) n) s`,
  [from, to, admin]);
  const lng = sid('lng', 1);
  const longHistory = bulk(`DO $$
    BEGIN
      PERFORM records_append_version('${sid('vlg', 1)}', '${lng}', '${admin}', 'Created the row');
      FOR i IN 2..${size.longRowVersions} LOOP
        UPDATE cells SET data = 'reading ' || i, updated_by = '${admin}', date_updated = clock_timestamp()
         WHERE sid = ${sqlSid('lnc', `((i - 2) % ${size.columnsPerTable}) + 1`)};
        PERFORM records_append_version(${sqlSid('vlg', 'i')}, '${lng}', '${admin}', 'Changed the cell of Column ' || (((i - 2) % ${size.columnsPerTable}) + 1));
      END LOOP;
    END $$`);
  const postRowVersions = bulk(`SELECT count(*) FROM (
      SELECT records_append_version(${sqlSid('vrp', 'n')}, ${sqlSid('rwp', 'n')}, $2, 'Created the row') FROM generate_series(1, $1::int) n) s`,
  [size.postRows, admin]);
  await Promise.all([firstVersions(1, half), firstVersions(half + 1, size.rows), longHistory, postRowVersions]);
  const versionsDone = Date.now();
  log(`  versions: ${((versionsDone - bulkDone) / 1000).toFixed(1)} s`);

  // Session tokens for the first personnel (the notification recipients), stored as the service stores them.
  const recipients: Recipient[] = [];
  for (let i = 1; i <= size.recipients; i += 1) {
    const token = randomBytes(32).toString('base64url');
    await q(`INSERT INTO credentials (key_hash, sid, user_sid, kind, name) VALUES ($1, $2, $3, 'session', 'benchmark')`,
      [createHash('sha256').update(token).digest('hex'), sid('crd', i), sid('usr', i)]);
    recipients.push({ sid: sid('per', i), name: `First${i} Last${i}`, token });
  }

  // Workflows with wait steps, through HTTP (the service validates a step's data).
  let workflowSid = '';
  for (let w = 1; w <= size.workflows; w += 1) {
    const workflow = await expect(base, 201, 'POST', `/tables/workflow/list/organization/${orgSid}/detail/`,
      { token: org.token, body: { name: `Workflow ${w}`, description: 'Seeded by the benchmark.' } });
    if (w === 1) workflowSid = workflow.sid;
    for (let n = 1; n <= size.stepsPerWorkflow; n += 1) {
      await expect(base, 201, 'POST', `/tables/step/list/organization/${orgSid}/detail/`,
        { token: org.token, body: { name: `Wait ${n}`, workflow: workflow.sid, widget: 'builtinWidgetWai', data: { event: `go-${n}` } } });
    }
  }

  await q('VACUUM (ANALYZE)');
  const done = Date.now();
  log(`  vacuum analyze: ${((done - versionsDone) / 1000).toFixed(1)} s`);
  const smallRows = Math.floor(size.rows / stride);
  return {
    ...org, size, longRow: lng, recipients,
    smallTable: { sid: sid('tbl', 1), rows: smallRows }, bigTable: { sid: sid('tbl', 2), rows: size.rows - smallRows + 1 },
    postTable: { sid: sid('tbl', 3), rows: size.postRows }, workflowSid,
    seconds: {
      http: (httpDone - started) / 1000, bulk: (bulkDone - httpDone) / 1000, versions: (versionsDone - bulkDone) / 1000,
      vacuum: (done - versionsDone) / 1000, total: (done - started) / 1000,
    },
  };
}

/**
 * Seeds the embedded (PGlite) organization through HTTP only: `personnel` members added
 * by arrays of 100, one project with the admin as Project Admin, one table of
 * `columns` priced columns, `rows` rows with a cell in every column.
 */
export async function seedEmbedded(base: string, size: { personnel: number; columns: number; rows: number }, mailDir: string): Promise<SeededEmbedded> {
  const started = Date.now();
  const org = await createOrganization(base, 'embedded', mailDir);
  const { token, orgSid } = org;
  for (let first = 1; first < size.personnel; first += 100) {
    const batch = [];
    for (let i = first; i < Math.min(first + 100, size.personnel); i += 1) {
      batch.push({ email: `member${i}-${process.pid}@bench.example`, first_name: `First${i}`, last_name: `Last${i}` });
    }
    await expect(base, 201, 'POST', `/organizations/personnel/list/organization/${orgSid}/detail/`, { token, body: batch });
  }
  const project = await expect(base, 201, 'POST', `/projects/project/list/organization/${orgSid}/detail/`, { token, body: { name: 'Project 1' } });
  await expect(base, 201, 'POST', `/projects/member/list/project/${project.sid}/detail/`, {
    token, body: { personnel: org.personnelSid, permission: 'admin' },
  });
  const table = await expect(base, 201, 'POST', `/tables/table/list/organization/${orgSid}/detail/`, { token, body: { name: 'Table 1' } });
  const columns: string[] = [];
  for (let c = 1; c <= size.columns; c += 1) {
    const column = await expect(base, 201, 'POST', `/tables/column/list/organization/${orgSid}/detail/?table__sid=${table.sid}`, {
      token, body: { name: `Column ${c}`, widget: org.widgetSid, order: c },
    });
    columns.push(column.sid);
  }
  const rows: string[] = [];
  const cells: string[] = [];
  for (let n = 1; n <= size.rows; n += 1) {
    const row = await expect(base, 201, 'POST',
      `/tables/row/list/organization/${orgSid}/detail/?table__sid=${table.sid}&project__sid=${project.sid}`, { token, body: { name: `Sample ${n}` } });
    rows.push(row.sid);
    for (const column of columns) {
      const cell = await expect(base, 201, 'POST', `/tables/cell/list/organization/${orgSid}/detail/?row__sid=${row.sid}`, {
        token, body: { column, data: `value ${n}` },
      });
      cells.push(cell.sid);
    }
  }
  return { ...org, rows, cells, seconds: (Date.now() - started) / 1000 };
}

/** Whether the notifications module answers (a 404 means its route does not exist yet). */
export async function probeNotifications(org: Organization, recipients: Recipient[]) {
  const reply = await call(org.base, 'POST', `/notifications/notification/list/organization/${org.orgSid}/detail/`, {
    token: org.token,
    body: { to: recipients.slice(0, 2).map((r) => ({ sid: r.sid, name: r.name })), name: 'Benchmark probe', body: 'Is this built?', should_email: true },
  });
  return reply;
}

/** One of the organizations of scenario 2s (cell PATCH spread over organizations): its token and its cells' sids. */
export interface SpreadOrganization extends Organization {
  cells: string[];
}

/**
 * Seeds `count` more organizations for scenario 2s (issue 15, target 3): each through
 * HTTP (admin, token, priced widget, INITIAL_CREDITS), then in SQL one project with the
 * admin as Project Admin, one table of `columns` priced columns, and `rows` rows with a
 * cell in every column and their first version. A few seconds for 9 × 200 × 5.
 */
export async function seedSpreadOrganizations(base: string, pool: pg.Pool, count: number, size: { rows: number; columns: number }, mailDir: string): Promise<SpreadOrganization[]> {
  const orgs: SpreadOrganization[] = [];
  for (let i = 1; i <= count; i += 1) {
    const org = await createOrganization(base, `spread${i}`, mailDir);
    const p = (kind: string) => `x${i}${kind}`; // sid prefixes of this organization's records, e.g. 'x3r'
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL session_replication_role = replica');
      await client.query(`INSERT INTO projects (sid, organization_sid, name, description, created_by) VALUES ($1, $2, 'Project 1', 'Spread benchmark', $3)`,
        [sid(p('p'), 1), org.orgSid, org.userSid]);
      await client.query(`INSERT INTO project_members (sid, project_sid, personnel_sid, permission) VALUES ($1, $2, $3, 'admin')`,
        [sid(p('m'), 1), sid(p('p'), 1), org.personnelSid]);
      await client.query(`INSERT INTO record_tables (sid, organization_sid, name, unique_code, description, created_by) VALUES ($1, $2, 'Table 1', 'T1', 'Spread benchmark', $3)`,
        [sid(p('t'), 1), org.orgSid, org.userSid]);
      await client.query(`INSERT INTO record_columns (sid, organization_sid, table_sid, widget_sid, name, "order")
        SELECT ${sqlSid(p('c'), 'c')}, $2, $3, $4, 'Column ' || c, c FROM generate_series(1, $1::int) c`,
      [size.columns, org.orgSid, sid(p('t'), 1), org.widgetSid]);
      await client.query(`INSERT INTO record_rows (sid, organization_sid, table_sid, project_sid, name, description, created_by)
        SELECT ${sqlSid(p('r'), 'n')}, $2, $3, $4, 'Sample ' || n, 'Seeded by the benchmark.', $5 FROM generate_series(1, $1::int) n`,
      [size.rows, org.orgSid, sid(p('t'), 1), sid(p('p'), 1), org.userSid]);
      await client.query(`INSERT INTO cells (sid, organization_sid, row_sid, column_sid, widget_sid, data, created_by, updated_by)
        SELECT ${sqlSid(p('l'), '(n - 1) * $2 + c')}, $3, ${sqlSid(p('r'), 'n')}, ${sqlSid(p('c'), 'c')}, $4, 'value ' || n || '.' || c, $5, $5
          FROM generate_series(1, $1::int) n, generate_series(1, $2::int) c`,
      [size.rows, size.columns, org.orgSid, org.widgetSid, org.userSid]);
      await client.query(`SELECT count(*) FROM (SELECT records_append_version(${sqlSid(p('v'), 'n')}, ${sqlSid(p('r'), 'n')}, $2, 'Created the row')
        FROM generate_series(1, $1::int) n) s`, [size.rows, org.userSid]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
    const cells = [];
    for (let n = 1; n <= size.rows * size.columns; n += 1) cells.push(sid(p('l'), n));
    orgs.push({ ...org, cells });
  }
  await pool.query('ANALYZE');
  return orgs;
}
