// The personnel list's filters: `search` (members whose name ("First Last") or email
// contains the text, case-insensitive, counted and paged like the whole list, with an index
// behind it) and `user__sid` (the record of one account).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertPage, expectFieldErrors, expectStatus } from '../helpers/assertions.ts';
import { addMember, newOrganization, paths, postPersonnel, unique, type TestMember } from '../helpers/factories.ts';
import { behindTheApi } from '../helpers/behind.ts';
import { DB_KIND } from '../helpers/env.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

describe('personnel search', () => {
  let admin: TestMember;
  let member: TestMember;
  let org: { sid: string };
  let tag: string;

  /**
   * The names of the members the search finds (list shape), but the Admin and the member,
   * whose generated names and emails hold random letters that a short search may meet;
   * and the page's count.
   */
  async function found(as: TestMember, search: string, query: Record<string, string | number> = {}) {
    const page = assertPage(await as.api.get(paths.personnelList(org.sid, 'list', { search, ...query })), 'personnel.list');
    const generated = new Set([admin.personnel.sid, member.personnel.sid]);
    return { names: page.results.filter((p) => !generated.has(p.sid)).map((p) => p.name).sort(), count: page.count, page };
  }

  before(async () => {
    ({ admin, org } = await newOrganization('search'));
    member = await addMember(admin, org);
    tag = unique('t').replace(/[^a-z0-9]/gi, '').toLowerCase();
    expectStatus(await postPersonnel(admin.api, org.sid, [
      { email: `ada.${tag}@lab.example`, first_name: 'Ada', last_name: 'Lovelace' },
      { email: `grace.${tag}@navy.example`, first_name: 'Grace', last_name: 'Hopper' },
      { email: `percent_${tag}@lab.example`, first_name: 'Per', last_name: 'Cent' },
      { email: `nameless.${tag}@lab.example` },
    ]), 201);
  });

  test('by part of a first name, a last name or the full name, whatever the case', async () => {
    assert.deepEqual((await found(admin, 'ada')).names, ['Ada Lovelace']);
    assert.deepEqual((await found(admin, 'HOPP')).names, ['Grace Hopper']);
    assert.deepEqual((await found(admin, 'ace ho')).names, ['Grace Hopper'], 'the name as shown, "First Last"');
    assert.deepEqual((await found(admin, 'e')).names.filter((n) => /Lovelace|Hopper|Cent/.test(n)), ['Ada Lovelace', 'Grace Hopper', 'Per Cent']);
    assert.deepEqual((await found(admin, 'ada lov')).names, ['Ada Lovelace'], 'a part spanning first and last name');
  });

  test('by part of the email, and a member without a name is found by it', async () => {
    const { names, count } = await found(admin, `.${tag}@lab`);
    assert.deepEqual(names, ['Ada Lovelace', `nameless.${tag}@lab.example`].sort());
    assert.equal(count, 2);
  });

  test('LIKE wildcards in the text are taken literally', async () => {
    assert.deepEqual((await found(admin, `percent_${tag}`)).names, ['Per Cent']);
    assert.deepEqual((await found(admin, `percent%${tag}`)).names, []);
    assert.deepEqual((await found(admin, '_')).names, ['Per Cent'], 'only the one email with an underscore');
  });

  test('count and pages cover what was found, and the links keep the search', async () => {
    const first = await found(admin, tag, { page_size: 3 });
    assert.equal(first.count, 4);
    assert.equal(first.page.page_count, 2);
    assert.equal(first.page.results.length, 3);
    assert.ok(first.page.next, 'a next page');
    assert.equal(new URL(first.page.next!).searchParams.get('search'), tag);
    const second = assertPage(await admin.api.get(first.page.next!), 'personnel.list');
    assert.equal(second.results.length, 1);
    const all = [...first.page.results, ...second.results].map((p) => p.name).sort();
    assert.deepEqual(all, ['Ada Lovelace', 'Grace Hopper', `nameless.${tag}@lab.example`, 'Per Cent'].sort());
  });

  test('nothing found is an empty first page; an empty search is everyone', async () => {
    const none = await found(admin, `nobody-${tag}`);
    assert.deepEqual([none.names, none.count, none.page.page_count], [[], 0, 1]);
    assert.equal((await found(admin, '')).count, 6, 'the Admin, the member and the four added');
  });

  test('a Member searches the same list, in the name shape too', async () => {
    assert.deepEqual((await found(member, 'lovelace')).names, ['Ada Lovelace']);
    const names = assertPage(await member.api.get(paths.personnelList(org.sid, 'name', { search: 'hopper' })), 'personnel.name');
    assert.deepEqual(names.results.map((p) => p.name), ['Grace Hopper']);
  });

  test('user__sid finds the record of one account (a caller finds their own), alone or with a search', async () => {
    const mine = assertPage(await member.api.get(paths.personnelList(org.sid, 'list', { user__sid: member.sid })), 'personnel.list');
    assert.deepEqual([mine.count, mine.results.map((p) => p.sid)], [1, [member.personnel.sid]]);
    const admins = assertPage(await member.api.get(paths.personnelList(org.sid, 'name', { user__sid: admin.sid })), 'personnel.name');
    assert.deepEqual(admins.results.map((p) => p.sid), [admin.personnel.sid]);
    const none = assertPage(await admin.api.get(paths.personnelList(org.sid, 'list', { user__sid: 'no-such-account' })), 'personnel.list');
    assert.deepEqual([none.count, none.results], [0, []]);
    const both = assertPage(await admin.api.get(paths.personnelList(org.sid, 'list', { user__sid: member.sid, search: 'lovelace' })), 'personnel.list');
    assert.equal(both.count, 0, 'both filters apply');
  });

  test('is_administrator: only the Admins (who add people to projects), or only the others', async () => {
    const admins = assertPage(await member.api.get(paths.personnelList(org.sid, 'name', { is_administrator: 'true' })), 'personnel.name');
    assert.deepEqual([admins.count, admins.results.map((p) => p.sid)], [1, [admin.personnel.sid]]);
    const others = assertPage(await admin.api.get(paths.personnelList(org.sid, 'list', { is_administrator: 'False' })), 'personnel.list');
    assert.equal(others.count, 5, 'the member and the four added');
    assert.ok(others.results.every((p) => !p.is_administrator));
    const searched = assertPage(await admin.api.get(paths.personnelList(org.sid, 'list', { is_administrator: 'true', search: 'lovelace' })), 'personnel.list');
    assert.equal(searched.count, 0, 'both filters apply');
    expectFieldErrors(await admin.api.get(paths.personnelList(org.sid, 'list', { is_administrator: 'maybe' })), ['is_administrator']);
  });

  test('a search longer than 255 characters is refused: 400 naming the field', async () => {
    const res = await admin.api.get(paths.personnelList(org.sid, 'list', { search: 'x'.repeat(256) }));
    expectFieldErrors(res, ['search']);
  });
});

describe('personnel search has indexes behind it', () => {
  let own: RunningServer | null = null;
  let dataDir = '';

  before(async () => {
    if (DB_KIND !== 'pglite') return;
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-search-'));
    own = await startServer({ databaseUrl: null, dataDir }); // its folder outlives a stop, for behindTheApi
  });
  after(async () => {
    await own?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the name and the email condition each use a trigram index when sequential scans are off', async () => {
    let plan = '';
    own = await behindTheApi(own, async (run) => {
      await run('SET enable_seqscan = off');
      const explained = await run(
        // The search's condition as the service writes it (without the organization's, whose
        // own index the planner prefers while an organization is small).
        `EXPLAIN SELECT sid FROM personnel WHERE ((first_name || ' ' || last_name) ILIKE $1 OR email ILIKE $1)`,
        ['%lovelace%'],
      );
      plan = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
      await run('RESET enable_seqscan');
    });
    assert.match(plan, /personnel_name_trgm_idx/, plan);
    assert.match(plan, /personnel_email_trgm_idx/, plan);
  });
});
