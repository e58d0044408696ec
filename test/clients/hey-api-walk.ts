// The walkthrough of openapi-fetch-walk.ts, with the SDK @hey-api/openapi-ts makes of
// openapi.json (its fetch client): test/modules/generated-clients.test.ts generates
// `hey-api/` beside this file, compiles both with tsc --strict and runs walk() against
// the server. No casts: everything is read through the generated types.
import { createClient, createConfig } from './hey-api/client/index.js';
import {
  createCellDetail, createColumnDetail, createMemberDetail, createNotificationDetail, createOrganizationDetail, createProjectDetail,
  createRowDetail, createTableDetail, getCell, listNotificationsList, listPersonnelList, listVersionsList, signIn, signUp, updateCell,
  verifyEmail,
} from './hey-api/sdk.gen.js';
import type {
  CellDetail, CellList, CellName, GridRow, JsonValue, ListVersionsListResponse, NotificationDetail, NotificationList, NotificationName,
  PersonnelDetail, PersonnelList, PersonnelName, RowData, RowDetail, RowList, RowName, Version, VersionDetail, VersionList, VersionName,
} from './hey-api/types.gen.js';
import type { Expect, Leaks } from './no-unknown.js';
import { detailOf, refused, type Walked } from './report.js';

// The common shapes hold no `unknown` (it would not compile).
export type Closed = [
  Expect<Leaks<RowName | RowList | RowDetail | GridRow, JsonValue>>,
  Expect<Leaks<CellName | CellList | CellDetail, JsonValue>>,
  Expect<Leaks<VersionName | VersionList | VersionDetail | Version | RowData, JsonValue>>,
  Expect<Leaks<PersonnelName | PersonnelList | PersonnelDetail, JsonValue>>,
  Expect<Leaks<NotificationName | NotificationList | NotificationDetail, JsonValue>>,
  Expect<Leaks<ListVersionsListResponse, JsonValue>>,
];

export async function walk(baseUrl: string, proofTag: (email: string) => Promise<string>): Promise<Walked> {
  const anonymous = createClient(createConfig({ baseUrl }));
  const email = `hey-api-${Date.now()}-${Math.floor(Math.random() * 1e9)}@example.org`;
  const password = 'correct horse battery staple';

  const signedUp = await signUp({ client: anonymous, body: { email, password, first_name: 'Ada', last_name: 'Lovelace' } });
  if (!signedUp.data) throw refused('sign-up', signedUp.response, signedUp.error);
  const proved = await verifyEmail({ client: anonymous, query: { tag: await proofTag(email) } });
  if (!proved.data) throw refused('proving the email', proved.response, proved.error);
  const signedIn = await signIn({ client: anonymous, body: { username: email, password } });
  if (!signedIn.data) throw refused('sign-in', signedIn.response, signedIn.error);
  const me: string = signedIn.data.user.sid;
  const token = signedIn.data.token;
  // The document's security schemes: the session token goes in the `token` header.
  const client = createClient(createConfig({ baseUrl, auth: (scheme) => (scheme.name === 'token' ? token : undefined) }));

  const organization = await createOrganizationDetail({ client, path: { level: 'user', sid: me }, body: { name: 'Lovelace Lab' } });
  if (!organization.data) throw refused('organization', organization.response, organization.error);
  const org = organization.data.sid;
  const people = await listPersonnelList({ client, path: { level: 'organization', sid: org } });
  if (!people.data) throw refused('personnel', people.response, people.error);
  const [myself] = people.data.results;

  const project = await createProjectDetail({ client, path: { level: 'organization', sid: org }, body: { name: 'Analytical Engine' } });
  if (!project.data) throw refused('project', project.response, project.error);
  const joined = await createMemberDetail({ client, path: { level: 'project', sid: project.data.sid }, body: { personnel: myself.sid, permission: 'admin' } });
  if (!joined.data) throw refused('joining the project', joined.response, joined.error);

  const table = await createTableDetail({ client, path: { level: 'organization', sid: org }, body: { name: 'Samples', description: 'one row per sample' } });
  if (!table.data) throw refused('table', table.response, table.error);
  const column = await createColumnDetail({
    client, path: { level: 'organization', sid: org }, query: { table__sid: table.data.sid }, body: { name: 'Weight', widget: 'builtinWidgetTxt' },
  });
  if (!column.data) throw refused('column', column.response, column.error);
  const row = await createRowDetail({
    client, path: { level: 'organization', sid: org }, query: { table__sid: table.data.sid, project__sid: project.data.sid }, body: { name: 'Sample 1' },
  });
  if (!row.data) throw refused('row', row.response, row.error);

  // The cell, read back, and changed on the condition that nobody changed it meanwhile.
  const created = await createCellDetail({
    client, path: { level: 'organization', sid: org }, query: { row__sid: row.data.sid }, body: { column: column.data.sid, data: '12.5 g' },
  });
  if (!created.data) throw refused('cell', created.response, created.error);
  const cell = created.data.sid;
  const read = await getCell({ client, path: { sid: cell } });
  if (!read.data) throw refused('reading the cell', read.response, read.error);
  const etag = read.response.headers.get('etag') ?? '';
  const patched = await updateCell({ client, path: { sid: cell }, headers: { 'If-Match': etag }, body: { data: '12.6 g' } });
  if (!patched.data) throw refused('changing the cell', patched.response, patched.error);
  const data: string = patched.data.data;
  if (data !== '12.6 g') throw new Error(`the PATCH answered ${data}`);
  const stale = await updateCell({ client, path: { sid: cell }, headers: { 'If-Match': created.response.headers.get('etag') ?? '' }, body: { data: '12.7 g' } });

  // The versions, as records and as row data.
  const versions = await listVersionsList({ client, path: { level: 'organization', sid: org }, query: { row__sid: row.data.sid } });
  if (!versions.data) throw refused('versions', versions.response, versions.error);
  const listed: Walked['versions'] = [];
  for (const version of versions.data.results) if ('activity_message' in version) listed.push({ version: version.version, activity: version.activity_message });
  const rowData = await listVersionsList({ client, path: { level: 'organization', sid: org }, query: { row__sid: row.data.sid, dataonly: true } });
  if (!rowData.data) throw refused('versions as data', rowData.response, rowData.error);
  const cells: string[] = [];
  for (const version of rowData.data.results) if ('cells' in version) cells.push(version.cells[column.data.sid] ?? '');

  // A notification to oneself, and the inbox.
  const sent = await createNotificationDetail({
    client, path: { level: 'organization', sid: org }, body: { to: [{ sid: myself.sid, name: myself.name }], name: 'Sample 1 weighed', body: 'See the row.' },
  });
  if (!sent.data) throw refused('notification', sent.response, sent.error);
  const inbox = await listNotificationsList({ client, path: { level: 'organization', sid: org }, query: { is_read: false } });
  if (!inbox.data) throw refused('inbox', inbox.response, inbox.error);

  return {
    email, organization: org, row: row.data.sid, column: column.data.sid, cell,
    etags: { created: created.response.headers.get('etag') ?? '', read: etag, patched: patched.response.headers.get('etag') ?? '' },
    stale: { status: stale.response.status, detail: detailOf(stale.error) },
    versions: listed, data: cells,
    personnel: { sid: myself.sid, email: myself.email, is_administrator: myself.is_administrator },
    inbox: inbox.data.results.map((n) => ({ name: n.name, is_read: n.is_read })),
  };
}
