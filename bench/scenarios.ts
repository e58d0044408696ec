// The scenarios of the benchmark (issue 6): what each request is, on the seeded data.
import type { RequestSpec } from './lib/load.js';
import { sid, type Organization, type Recipient, type SeededPostgres, type SeededEmbedded, type SpreadOrganization } from './seed.js';

/** What a scenario's figures are compared with (bench/limits/). */
export type LimitName = 'select1' | 'pgbench' | null;

export interface Scenario {
  id: string;
  title: string;
  spec: RequestSpec;
  limit: LimitName;
}

const randomInt = (n: number) => 1 + Math.floor(Math.random() * n);
let counter = 0;
/** New cell data every time: a PATCH with the data the cell has already changes nothing. */
const freshData = () => JSON.stringify({ data: `reading ${process.pid}-${(counter += 1)}-${Math.random().toString(36).slice(2, 10)}` });

function auth(org: Organization) {
  return { token: org.token };
}

/** Scenarios 1a/1b: the personnel list, page 1 of 1,000, in the `list` and `detail` shapes. */
export function personnelList(org: Organization, serializer: 'list' | 'detail'): Scenario {
  return {
    id: `1-personnel-${serializer}`,
    title: `personnel list, ${serializer} shape, page 1`,
    spec: { method: 'GET', path: `/organizations/personnel/list/organization/${org.orgSid}/${serializer}/`, headers: auth(org) },
    limit: 'select1',
  };
}

/** Scenario 2 on the PostgreSQL seed: PATCH a random cell of a random row (a version and a debit each). */
export function cellPatch(seed: SeededPostgres): Scenario {
  const cells = seed.size.rows * seed.size.columnsPerTable;
  return {
    id: '2-cell-patch',
    title: 'cell PATCH, random cell',
    spec: {
      method: 'PATCH', path: `/tables/cell/detail/${sid('cel', 1)}/`, headers: auth(seed), body: freshData(),
      setup: () => ({ path: `/tables/cell/detail/${sid('cel', randomInt(cells))}/`, body: freshData() }),
    },
    limit: 'pgbench',
  };
}

/**
 * Scenario 2s (issue 15, target 3): the same PATCH, each request on a random cell of a
 * random one of 10 organizations (the seed's and 9 more), with that organization's token.
 * Its rate beside scenario 2's (one organization) shows whether one organization's writers
 * queue behind each other.
 */
export function cellPatchSpread(seed: SeededPostgres, more: SpreadOrganization[]): Scenario {
  const mainCells = seed.size.rows * seed.size.columnsPerTable;
  const orgs = [
    { token: seed.token, pick: () => sid('cel', randomInt(mainCells)) },
    ...more.map((o) => ({ token: o.token, pick: () => o.cells[randomInt(o.cells.length) - 1] })),
  ];
  return {
    id: '2s-cell-patch-10-orgs',
    title: `cell PATCH, random cell of a random one of ${orgs.length} organizations`,
    spec: {
      method: 'PATCH', path: `/tables/cell/detail/${sid('cel', 1)}/`, headers: auth(seed), body: freshData(),
      setup: () => {
        const org = orgs[randomInt(orgs.length) - 1];
        return { path: `/tables/cell/detail/${org.pick()}/`, body: freshData(), headers: { token: org.token } };
      },
    },
    limit: 'pgbench',
  };
}

/** Scenario 2 on the embedded seed, whose cells were created through HTTP (random sids). */
export function cellPatchEmbedded(seed: SeededEmbedded): Scenario {
  const pick = () => seed.cells[randomInt(seed.cells.length) - 1];
  return {
    id: '2-cell-patch',
    title: 'cell PATCH, random cell',
    spec: {
      method: 'PATCH', path: `/tables/cell/detail/${pick()}/`, headers: auth(seed), body: freshData(),
      setup: () => ({ path: `/tables/cell/detail/${pick()}/`, body: freshData() }),
    },
    limit: null,
  };
}

/** Scenario 3: the cells of a random row. */
export function cellList(seed: SeededPostgres): Scenario {
  const path = (n: number) => `/tables/cell/list/organization/${seed.orgSid}/list/?row__sid=${sid('row', n)}`;
  return {
    id: '3-cell-list',
    title: 'cell list, row__sid of a random row',
    spec: { method: 'GET', path: path(1), headers: auth(seed), setup: () => ({ path: path(randomInt(seed.size.rows)) }) },
    limit: 'select1',
  };
}

/** Scenario 4: page 50 of the long row's versions, in the shape with `data` and `is_valid`. */
export function versionList(seed: SeededPostgres): Scenario {
  return {
    id: '4-version-list',
    title: `version list of the ${seed.size.longRowVersions.toLocaleString('en')}-version row, detail shape, page 50`,
    spec: {
      method: 'GET', path: `/tables/version/list/organization/${seed.orgSid}/detail/?row__sid=${seed.longRow}&page=50`, headers: auth(seed),
    },
    limit: 'select1',
  };
}

/**
 * Scenario 7: page `page` of the row list of the small or the big table (issue 6: a page
 * costs the same with 1,000 or 100,000 rows in the table, apart from the count).
 */
export function rowList(seed: SeededPostgres, which: 'small' | 'big', page = 1): Scenario {
  const table = which === 'small' ? seed.smallTable : seed.bigTable;
  return {
    id: `7-row-list-${which}${page > 1 ? `-page-${page}` : ''}`,
    title: `row list of the ${table.rows.toLocaleString('en')}-row table, page ${page}`,
    spec: {
      method: 'GET', path: `/tables/row/list/organization/${seed.orgSid}/list/?table__sid=${table.sid}${page > 1 ? `&page=${page}` : ''}`,
      headers: auth(seed),
    },
    limit: 'select1',
  };
}

/** Scenario 5a: a notification to two recipients (with their outbox mail). */
export function notificationPost(seed: SeededPostgres): Scenario {
  const body = () => {
    const first = randomInt(seed.recipients.length) - 1;
    const second = (first + randomInt(seed.recipients.length - 1)) % seed.recipients.length;
    const to = [seed.recipients[first], seed.recipients[second]].map((r: Recipient) => ({ sid: r.sid, name: r.name }));
    return JSON.stringify({ to, name: `Benchmark notice ${(counter += 1)}`, body: 'Please review the latest readings.', should_email: true });
  };
  return {
    id: '5-notification-post',
    title: 'notification POST to two recipients',
    spec: {
      method: 'POST', path: `/notifications/notification/list/organization/${seed.orgSid}/detail/`, headers: auth(seed), body: body(),
      setup: () => ({ body: body() }),
    },
    limit: 'select1',
  };
}

/** Scenario 5b: a recipient's inbox, page 1. */
export function inboxList(seed: SeededPostgres): Scenario {
  const pick = () => seed.recipients[randomInt(seed.recipients.length) - 1].token;
  return {
    id: '5-inbox-list',
    title: 'notification inbox list of a recipient',
    spec: {
      method: 'GET', path: `/notifications/notification/list/organization/${seed.orgSid}/list/`, headers: { token: pick() },
      setup: () => ({ headers: { token: pick() } }),
    },
    limit: 'select1',
  };
}

/**
 * Scenario 2b: POST a cell into an empty cell of table 3 (a version and a debit each);
 * every request fills the next one, row by row, so none is refused as already there.
 */
export function cellPost(seed: SeededPostgres): Scenario {
  const columns = seed.size.columnsPerTable;
  let next = 0;
  const slot = () => {
    const n = next % (seed.postTable.rows * columns);
    next += 1;
    return { row: sid('rwp', 1 + Math.floor(n / columns)), column: sid('col', 300 + 1 + (n % columns)) };
  };
  const request = () => {
    const { row, column } = slot();
    return { path: `/tables/cell/list/organization/${seed.orgSid}/detail/?row__sid=${row}`, body: JSON.stringify({ column, data: `posted ${(counter += 1)}` }) };
  };
  const first = request();
  return {
    id: '2-cell-post',
    title: 'cell POST into an empty cell',
    spec: { method: 'POST', path: first.path, headers: auth(seed), body: first.body, setup: request },
    limit: 'pgbench',
  };
}

/** Scenario 8a: the grid endpoint of the web app, page 1 of the 1,000-row table, each row with its cells. */
export function gridList(seed: SeededPostgres): Scenario {
  return {
    id: '8-grid',
    title: `grid of the ${seed.smallTable.rows.toLocaleString('en')}-row table, page 1 (rows with their cells)`,
    spec: { method: 'GET', path: `/tables/row/list/table/${seed.smallTable.sid}/grid/`, headers: auth(seed) },
    limit: 'select1',
  };
}

/** Scenario 8b: the organization's workflows, page 1. */
export function workflowList(seed: SeededPostgres): Scenario {
  return {
    id: '8-workflow-list',
    title: `workflow list, list shape, page 1 of ${seed.size.workflows}`,
    spec: { method: 'GET', path: `/tables/workflow/list/organization/${seed.orgSid}/list/`, headers: auth(seed) },
    limit: 'select1',
  };
}

/** Scenario 8c: the steps of a workflow, in order. */
export function stepList(seed: SeededPostgres): Scenario {
  return {
    id: '8-step-list',
    title: `step list of a workflow (${seed.size.stepsPerWorkflow} steps), list shape`,
    spec: { method: 'GET', path: `/tables/step/list/organization/${seed.orgSid}/list/?workflow__sid=${seed.workflowSid}`, headers: auth(seed) },
    limit: 'select1',
  };
}
