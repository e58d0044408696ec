// Labii's own client, replayed (issue 24): requests exactly as labii-sdk 1.13.14 sends
// them — its LabiiObject's APIResource(app, model) calls through its APIObject: list URLs
// /{app}/{model}/list/{level}/{sid}/{serializer}/ with level "organization" and the
// organization's sid by default, create always at serializer "detail", `page=…&page_size=…`
// before the caller's query, all_pages walking page after page, compact JSON bodies, and
// the headers X-Forwarded-For: batch, Content-Type: application/json and Authorization
// "Token <token>" (after /accounts/auth/) or "Bearer <api key>". The SDK is not on the
// registries here and its code is not copied: these requests are written from reading it
// (docs/labii-compatibility.md). Then Labii's own filters, and a parameter it does not have.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL } from '../helpers/env.ts';
import { addMember, newOrganization, newUser, unique, type TestMember } from '../helpers/factories.ts';

interface Reply { status: number; json: any; text: string }

/** What the SDK's APIObject does on the wire, for one organization. */
class LabiiClient {
  token: string | null = null;
  apiKey: string | null = null;
  constructor(public organizationSid: string) {}

  headers(authorized = true): Record<string, string> {
    const headers: Record<string, string> = { 'X-Forwarded-For': 'batch', 'Content-Type': 'application/json' };
    if (authorized) {
      if (this.apiKey !== null) headers.Authorization = `Bearer ${this.apiKey}`;
      else if (this.token !== null) headers.Authorization = `Token ${this.token}`;
    }
    return headers;
  }

  async send(method: string, url: string, data?: unknown, authorized = true): Promise<Reply> {
    const res = await fetch(`${BASE_URL}${url}`, {
      method, headers: this.headers(authorized), ...(data === undefined ? {} : { body: JSON.stringify(data) }),
    });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  }

  listUrl(app: string, model: string, { level = 'organization', sid = this.organizationSid, serializer = 'list', query = '' } = {}) {
    return `/${app}/${model}/list/${level}/${sid}/${serializer}/${query === '' ? '' : '?'}${query}`;
  }

  detailUrl(app: string, model: string, sid: string, query = '') {
    return `/${app}/${model}/detail/${sid}/${query === '' ? '' : '?'}${query}`;
  }

  async login(email: string, password: string): Promise<void> {
    const res = await this.send('POST', '/accounts/auth/', { username: email, password }, false);
    assert.equal(res.status, 200, res.text);
    this.token = res.json.token;
  }

  /** An APIResource(app, model) of the SDK. */
  resource(app: string, model: string) {
    return {
      create: (data: unknown, query = '') => this.send('POST', this.listUrl(app, model, { serializer: 'detail', query }), data),
      retrieve: (sid: string, query = '') => this.send('GET', this.detailUrl(app, model, sid, query)),
      list: async ({ page = 1, pageSize = 10, allPages = false, level = 'organization', serializer = 'list', query = '' } = {}): Promise<Reply> => {
        if (!allPages) {
          return this.send('GET', this.listUrl(app, model, { level, serializer, query: `page=${page}&page_size=${pageSize}${query === '' ? '' : '&'}${query}` }));
        }
        // all_pages: page after page of 10 until the results reach the count.
        const url = this.listUrl(app, model, { level, serializer, query });
        const at = (n: number) => `${url}${url.includes('?') ? '&' : '?'}page=${n}&page_size=10`;
        const first = await this.send('GET', at(1));
        if (first.status !== 200) return first;
        let results = first.json.results as unknown[];
        for (let n = 2; results.length < first.json.count; n += 1) {
          const next = await this.send('GET', at(n));
          assert.equal(next.status, 200, next.text);
          results = results.concat(next.json.results);
        }
        return { ...first, json: { ...first.json, results } };
      },
      modify: (sid: string, data: unknown, query = '') => this.send('PATCH', this.detailUrl(app, model, sid, query), data),
      delete: (sid: string, query = '') => this.send('DELETE', this.detailUrl(app, model, sid, query)),
    };
  }

  Organization = this.resource('organizations', 'organization');
  Personnel = this.resource('organizations', 'personnel');
  Team = this.resource('organizations', 'team');
  Project = this.resource('projects', 'project');
  Member = this.resource('projects', 'member');
  Table = this.resource('tables', 'table');
  Column = this.resource('tables', 'column');
  Workflow = this.resource('workflows', 'workflow');
  APIKey = this.resource('accounts', 'apikey');

  /** The SDK's get_columns: {column name: sid} of the columns a query selects. */
  async getColumns(query: string): Promise<Record<string, string>> {
    const res = await this.Column.list({ query, serializer: 'name', allPages: true });
    assert.equal(res.status, 200, res.text);
    return Object.fromEntries(res.json.results.map((c: { name: string; sid: string }) => [c.name, c.sid]));
  }
}

const created = (res: Reply, what: string) => {
  assert.equal(res.status, 201, `${what}: ${res.status} ${res.text}`);
  return res.json;
};
const ok = (res: Reply, what: string) => {
  assert.equal(res.status, 200, `${what}: ${res.status} ${res.text}`);
  return res.json;
};

describe("Labii's SDK (labii-sdk 1.13.14) against the service", () => {
  let admin: TestMember;
  let org: { sid: string };
  let colleague: TestMember;
  let labii: LabiiClient;

  before(async () => {
    ({ admin, org } = await newOrganization('labiisdk'));
    colleague = await addMember(admin, org, {}, 'labiicolleague');
    labii = new LabiiClient(org.sid);
    await labii.login(admin.email, admin.password);
  });

  test('organizations: Organization.list() and retrieve() at level=organization; create() a second one with its username', async () => {
    const page = ok(await labii.Organization.list(), 'Organization.list()');
    assert.deepEqual([page.count, page.results.length, page.results[0].sid], [1, 1, org.sid]);
    assert.equal(typeof page.results[0].username, 'string');
    const handle = `lab-${unique('u').toLowerCase().replace(/[^a-z0-9-]/g, '')}`.slice(0, 40);
    const second = created(await labii.Organization.create({ name: 'Second Lab', username: handle, description: 'via the SDK' }), 'Organization.create()');
    assert.equal(second.username, handle);
    assert.deepEqual(second.personnel.map((p: { name: string }) => p.name), [`${admin.first_name} ${admin.last_name}`]);
    assert.deepEqual(second.updated_by, { sid: admin.sid, name: `${admin.first_name} ${admin.last_name}` });
    const detail = ok(await labii.Organization.retrieve(org.sid), 'Organization.retrieve()');
    assert.equal(detail.sid, org.sid);
    assert.deepEqual(detail.personnel.map((p: { sid: string }) => p.sid), [admin.personnel.sid, colleague.personnel.sid]);
    // The same handle, in other letters' case, is taken.
    const taken = await labii.Organization.create({ name: 'Third', username: handle.toUpperCase() });
    assert.deepEqual([taken.status, taken.json], [400, { username: ['Another organization has this username.'] }]);
    const patched = ok(await labii.Organization.modify(org.sid, { logo_icon: 'https://example.test/icon.png', should_receive_weekly_digest: true, metadata: { lab: 'B2' } }), 'Organization.modify()');
    assert.deepEqual([patched.logo_icon, patched.should_receive_weekly_digest, patched.metadata], ['https://example.test/icon.png', true, { lab: 'B2' }]);
  });

  test('teams: Team.create() with members, Team.list(), Team.retrieve(), and a team as a notification recipient', async () => {
    const team = created(await labii.Team.create({ name: 'Bench team', description: 'wet lab', members: [colleague.personnel.sid] }), 'Team.create()');
    assert.deepEqual([team.name, team.members, team.is_archived], ['Bench team', [colleague.personnel.sid], false]);
    const page = ok(await labii.Team.list(), 'Team.list()');
    assert.deepEqual(page.results.map((t: { sid: string }) => t.sid), [team.sid]);
    assert.deepEqual(Object.keys(page.results[0]).sort(), ['change_permission', 'description', 'is_archived', 'name', 'sid']);
    assert.deepEqual(ok(await labii.Team.retrieve(team.sid), 'Team.retrieve()').members, [colleague.personnel.sid]);
    assert.equal(ok(await labii.Team.list({ query: 'is_archived=true' }), 'archived teams').count, 0);
    // Sent to the team: its personnel receive it.
    const sent = await labii.send('POST', labii.listUrl('notifications', 'notification', { serializer: 'detail' }), { to: [{ sid: team.sid }], name: 'To the team', body: 'hello' });
    assert.equal(sent.status, 201, sent.text);
    const mine = await colleague.api.get(`/notifications/notification/list/organization/${org.sid}/list/`);
    assert.deepEqual(mine.json.results.map((n: { name: string }) => n.name), ['To the team']);
  });

  test('projects and members: Project.create() with Labii\'s fields; Member.create() at level=organization with ?project__sid=, member: [...] and team: [...]', async () => {
    const project = created(await labii.Project.create({
      name: 'Assay development', description: 'Q3', date_start: '2024-07-01', date_end: '2024-09-30', open_to_organization: false, metadata: { code: 'AD' },
    }), 'Project.create()');
    assert.deepEqual([project.date_start, project.date_end, project.is_archived, project.parent, project.metadata], ['2024-07-01', '2024-09-30', false, null, { code: 'AD' }]);
    const child = created(await labii.Project.create({ name: 'Assay child', parent: { sid: project.sid } }), 'a child project');
    assert.deepEqual(child.parent, { sid: project.sid, name: 'Assay development' });

    const member = created(await labii.Member.create({ member: [colleague.personnel.sid], permission: 'Edit' }, `project__sid=${project.sid}`), 'Member.create()');
    assert.deepEqual([member.personnel.sid, member.permission, member.team, member.project.sid, member.is_archived], [colleague.personnel.sid, 'edit', null, project.sid, false]);
    const members = ok(await labii.Member.list({ query: `project__sid=${project.sid}` }), 'Member.list()');
    assert.deepEqual(members.results.map((m: { sid: string }) => m.sid), [member.sid]);
    // The colleague now reads the project (Project Edit).
    assert.equal((await colleague.api.get(`/projects/project/detail/${project.sid}/`)).status, 200);

    // A team: each of its personnel becomes a member, remembering the team.
    const team = created(await labii.Team.create({ name: 'Reviewers', members: [colleague.personnel.sid] }), 'a team');
    const viaTeam = created(await labii.Member.create({ team: [team.sid], permission: 'View' }, `project__sid=${child.sid}`), 'Member.create() with a team');
    assert.deepEqual([viaTeam.personnel.sid, viaTeam.team, viaTeam.permission], [colleague.personnel.sid, { sid: team.sid, name: 'Reviewers' }, 'view']);

    // Without the project, or with one of another organization: a 400 that says so.
    const missing = await labii.Member.list();
    assert.deepEqual([missing.status, missing.json], [400, { project__sid: ['This query parameter is required at level=organization.'] }]);

    const archived = ok(await labii.Project.modify(project.sid, { is_archived: true }), 'Project.modify()');
    assert.equal(archived.is_archived, true);
    const open = ok(await labii.Project.list({ query: 'is_archived=false', allPages: true }), 'open projects');
    assert.deepEqual(open.results.map((p: { sid: string }) => p.sid), [child.sid]);
  });

  test('tables and columns: Table.create() with its Labii fields and counts; get_file_table\'s name_system filter; get_columns()', async () => {
    const samples = created(await labii.Table.create({
      name_singular: 'Sample', name_plural: 'Samples', unique_code: 'SMP', icon: 'flask', table_type: 'record', order: 2, metadata: { color: 'blue' },
    }), 'Table.create()');
    assert.deepEqual(
      [samples.name, samples.name_plural, samples.name_singular, samples.unique_code, samples.icon, samples.order, samples.number_of_records, samples.number_of_columns],
      ['Samples', 'Samples', 'Sample', 'SMP', 'flask', 2, 0, 0],
    );
    const files = created(await labii.Table.create({ name: 'Files', name_system: 'file' }), 'another file table');
    assert.equal(files.unique_code, 'FIL-2', 'a code from the name, past the organization\'s own files table\'s FIL');
    const again = created(await labii.Table.create({ name: 'Samples (old)' }), 'a table whose code is taken');
    assert.equal(again.unique_code, 'SAM');
    const dup = await labii.Table.create({ name: 'Other', unique_code: 'SMP' });
    assert.deepEqual([dup.status, dup.json], [400, { unique_code: ['Another table of this organization has this code.'] }]);

    // get_file_table: Table.list(query="name_system=file", serializer="detail")["results"][0].
    const fileTable = ok(await labii.Table.list({ query: 'name_system=file', serializer: 'detail' }), 'get_file_table');
    // The organization's own files table first (it has been there from its creation; test/modules/labii-upload.test.ts).
    assert.deepEqual(fileTable.results.map((t: { name: string; unique_code: string }) => [t.name, t.unique_code]), [['Files', 'FIL'], ['Files', 'FIL-2']]);
    assert.equal(fileTable.results[1].sid, files.sid);

    const weight = created(await labii.Column.create(
      { name: 'Weight', widget: 'builtinWidgetNum', settings: { unit: 'mg' }, is_required: true, description: 'dry weight' }, `table__sid=${samples.sid}`,
    ), 'Column.create()');
    assert.deepEqual([weight.is_required, weight.settings, weight.widget.sid, typeof weight.widget.documentation_url], [true, { unit: 'mg' }, 'builtinWidgetNum', 'string']);
    created(await labii.Column.create({ name: 'Received', widget: 'builtinWidgetDat' }, `table__sid=${samples.sid}`), 'a date column');
    const hidden = created(await labii.Column.create({ name: 'Old code', widget: 'builtinWidgetTxt', is_archived: true }, `table__sid=${samples.sid}`), 'an archived column');
    assert.deepEqual(await labii.getColumns(`table__sid=${samples.sid}`), { Weight: weight.sid, Received: (await labii.getColumns(`table__sid=${samples.sid}&is_archived=false`)).Received, 'Old code': hidden.sid });
    assert.deepEqual(Object.keys(await labii.getColumns(`table__sid=${samples.sid}&is_archived=false`)), ['Weight', 'Received']);

    const counted = ok(await labii.Table.retrieve(samples.sid), 'Table.retrieve()');
    assert.deepEqual([counted.number_of_columns, counted.number_of_workflows], [3, 0]);
  });

  test('workflows: Workflow.create() and list() at /workflows/workflow/ with number_of_steps; the same record at /tables/workflow/', async () => {
    const workflow = created(await labii.Workflow.create({ name: 'Review', description: 'two eyes' }), 'Workflow.create()');
    assert.deepEqual([workflow.description, workflow.number_of_steps, workflow.steps], ['two eyes', 0, []]);
    const step = await labii.send('POST', labii.listUrl('tables', 'step', { serializer: 'detail' }),
      { name: 'Wait', workflow: workflow.sid, widget: 'builtinWidgetWai', data: { event: 'go' }, color: '#ffaa00', redirect_to: '/dashboard/' });
    assert.equal(step.status, 201, step.text);
    assert.deepEqual([step.json.color, step.json.redirect_to, step.json.parent], ['#ffaa00', '/dashboard/', null]);
    const page = ok(await labii.Workflow.list(), 'Workflow.list()');
    assert.deepEqual(page.results.map((w: { sid: string; number_of_steps: number }) => [w.sid, w.number_of_steps]), [[workflow.sid, 1]]);
    assert.equal(ok(await labii.Workflow.retrieve(workflow.sid), 'Workflow.retrieve()').number_of_steps, 1);
    assert.equal((await admin.api.get(`/tables/workflow/detail/${workflow.sid}/`)).json.sid, workflow.sid);
  });

  test('API keys: APIKey.create() at level=organization; the key as "Authorization: Bearer"; APIKey.list()', async () => {
    const key = created(await labii.APIKey.create({ name: 'instrument' }), 'APIKey.create()');
    assert.equal(typeof key.key, 'string');
    const keyed = new LabiiClient(org.sid);
    keyed.apiKey = key.key;
    assert.equal(ok(await keyed.Table.list(), 'a list with the key').add_permission, true);
    const keys = ok(await labii.APIKey.list(), 'APIKey.list()');
    assert.ok(keys.results.some((k: { sid: string }) => k.sid === key.sid));
    // An organization the caller is not in: refused.
    const other = await newUser('labiistranger');
    const stranger = new LabiiClient(org.sid);
    await stranger.login(other.email, other.password);
    assert.equal((await stranger.APIKey.list()).status, 403);
  });

  test('a query parameter no list takes is a 400 naming it and those the list takes, never the unfiltered page', async () => {
    const res = await labii.Table.list({ query: 'name_sytem=file' });
    assert.deepEqual([res.status, res.json], [400, {
      name_sytem: ['Unknown query parameter; this list takes only: page, page_size, name_system, is_archived.'],
    }]);
    const personnel = await labii.Personnel.list({ query: 'search=&flavour=x&colour=y' });
    assert.equal(personnel.status, 400);
    assert.deepEqual(Object.keys(personnel.json), ['flavour', 'colour']);
    // And on a POST's query too.
    const column = await labii.Column.create({ name: 'X', widget: 'builtinWidgetTxt' }, 'table_sid=nope');
    assert.deepEqual([column.status, column.json], [400, { table_sid: ['Unknown query parameter; this list takes only: table__sid.'] }]);
  });
});
