// The personnel list machinery: pagination, levels, serializers, unknown organizations
// and methods not offered (design: Behaviour the spec leaves open).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous } from '../helpers/http.ts';
import {
  MESSAGES, assertPage, expectDetail, expectFieldErrors, expectMethodNotAllowed, expectNotAuthenticated,
  expectPlainText, expectStatus,
} from '../helpers/assertions.ts';
import { listPersonnel, newOrganization, paths, postPersonnel, uniqueEmail, type TestMember } from '../helpers/factories.ts';
import { BASE_URL } from '../helpers/env.ts';

/** The link's query parameters, sorted, and its origin + path. */
function link(url: string | null) {
  assert.ok(url, 'a link was expected');
  const parsed = new URL(url);
  return { at: parsed.origin + parsed.pathname, query: Object.fromEntries([...parsed.searchParams.entries()].sort()) };
}

describe('personnel pagination', () => {
  let admin: TestMember;
  let org: { sid: string };
  let all: { sid: string }[];

  before(async () => {
    ({ admin, org } = await newOrganization('pager'));
    const people = Array.from({ length: 11 }, (_, i) => ({ email: uniqueEmail(`page${i}`), first_name: `P${i}`, last_name: 'Pager' }));
    expectStatus(await postPersonnel(admin.api, org.sid, people), 201);
    all = await listPersonnel(admin.api, org.sid);
    assert.equal(all.length, 12);
  });

  test('default page size is 10: page 1 links to page 2 and page 2 back to page 1', async () => {
    const listUrl = paths.personnelList(org.sid, 'list');
    const first = assertPage(await admin.api.get(listUrl), 'personnel.list');
    assert.deepEqual([first.page_size, first.page_number, first.page_count, first.count], [10, 1, 2, 12]);
    assert.equal(first.previous, null);
    assert.deepEqual(link(first.next), { at: BASE_URL + listUrl, query: { page: '2' } });
    assert.deepEqual(first.results.map((p) => p.sid), all.slice(0, 10).map((p) => p.sid));

    const second = assertPage(await admin.api.get(first.next!), 'personnel.list');
    assert.deepEqual([second.page_size, second.page_number, second.page_count, second.count], [10, 2, 2, 12]);
    assert.equal(second.next, null);
    assert.deepEqual(link(second.previous), { at: BASE_URL + listUrl, query: { page: '1' } });
    assert.deepEqual(second.results.map((p) => p.sid), all.slice(10).map((p) => p.sid));
  });

  test('page_size and page walk every record once, and the links keep the other query parameters (an empty search: everyone)', async () => {
    const seen: string[] = [];
    let url: string | null = paths.personnelList(org.sid, 'name', { page_size: 5, search: '' });
    let number = 0;
    while (url) {
      number += 1;
      const page = assertPage(await admin.api.get(url), 'personnel.name');
      assert.equal(page.page_number, number);
      assert.equal(page.page_size, 5);
      assert.equal(page.page_count, 3);
      seen.push(...page.results.map((p) => p.sid));
      for (const [l, n] of [[page.next, number + 1], [page.previous, number - 1]] as const) {
        if (l) assert.deepEqual(link(l).query, { search: '', page: String(n), page_size: '5' });
      }
      url = page.next;
    }
    assert.equal(number, 3);
    assert.deepEqual(seen, all.map((p) => p.sid), 'every record once, in order');
  });

  test('page_size above 100 is clamped to 100', async () => {
    const page = assertPage(await admin.api.get(paths.personnelList(org.sid, 'name', { page_size: 1000 })), 'personnel.name');
    assert.equal(page.page_size, 100);
    assert.equal(page.page_count, 1);
    assert.equal(page.results.length, 12);
  });

  test('a page past the last: 404 {"detail": "Invalid page."}', async () => {
    expectDetail(await admin.api.get(paths.personnelList(org.sid, 'list', { page: 3 })), 404, MESSAGES.invalidPage);
    expectDetail(await admin.api.get(paths.personnelList(org.sid, 'list', { page: 2, page_size: 12 })), 404, MESSAGES.invalidPage);
    expectDetail(await admin.api.get(paths.personnelList(org.sid, 'list', { page: 999_999 })), 404, MESSAGES.invalidPage);
  });

  test('page=0, page=abc, page=1.5, page_size=-1, page_size=0: 400 naming the parameter', async () => {
    for (const [query, field] of [
      [{ page: 0 }, 'page'], [{ page: 'abc' }, 'page'], [{ page: '1.5' }, 'page'], [{ page: -2 }, 'page'],
      [{ page_size: -1 }, 'page_size'], [{ page_size: 0 }, 'page_size'], [{ page_size: 'ten' }, 'page_size'],
      [{ page: '99999999999999999999' }, 'page'],
    ] as const) {
      expectFieldErrors(await admin.api.get(paths.personnelList(org.sid, 'list', query)), [field], JSON.stringify(query));
    }
  });
});

describe('levels, serializers and organization sids', () => {
  let admin: TestMember;
  let org: { sid: string };
  before(async () => {
    ({ admin, org } = await newOrganization('levels'));
  });

  test('an unknown level: 406 "Wrong level - the provided level is not acceptable" (plain text)', async () => {
    for (const level of ['user', 'project', 'Organization', 'x']) {
      expectPlainText(await admin.api.get(paths.personnelList(org.sid, 'list', undefined, level)), 406, MESSAGES.wrongLevel, level);
    }
    expectPlainText(await admin.api.post(paths.personnelList(org.sid, 'detail', undefined, 'user'), { email: uniqueEmail('lvl') }),
      406, MESSAGES.wrongLevel, 'POST');
    assert.equal((await listPersonnel(admin.api, org.sid)).length, 1, 'nothing was added');
  });

  test('an unknown serializer: 406 (plain text), on GET and POST', async () => {
    expectPlainText(await admin.api.get(paths.personnelList(org.sid, 'full')), 406, MESSAGES.wrongSerializer);
    expectPlainText(await admin.api.post(paths.personnelList(org.sid, 'Detail'), { email: uniqueEmail('ser') }), 406, MESSAGES.wrongSerializer);
    expectPlainText(await admin.api.get(paths.personnelList(org.sid, 'full', undefined, 'nowhere')), 406, MESSAGES.wrongLevel,
      'the level is checked first');
  });

  test('an organization sid that does not exist, or is malformed: 406 "Wrong id - the provided sid is not correct"', async () => {
    const before = await listPersonnel(admin.api, org.sid);
    for (const sid of ['0000000000000000', 'zzzzzzzzzzzzzzzz', 'short', 'a'.repeat(300), 'not a sid!']) {
      expectPlainText(await admin.api.get(paths.personnelList(sid, 'list')), 406, MESSAGES.wrongId, sid);
      expectPlainText(await postPersonnel(admin.api, sid, { email: uniqueEmail('wrongid') }), 406, MESSAGES.wrongId, sid);
    }
    assert.deepEqual(await listPersonnel(admin.api, org.sid), before);
  });

  test('without a token the list answers 401 before looking at level, serializer or sid', async () => {
    expectNotAuthenticated(await anonymous.get(paths.personnelList(org.sid, 'list')));
    expectNotAuthenticated(await anonymous.get(paths.personnelList(org.sid, 'full', undefined, 'nowhere')));
    expectNotAuthenticated(await anonymous.get(paths.personnelList('0000000000000000', 'list')));
  });
});

describe('methods not offered on personnel', () => {
  test('PUT and DELETE on the detail: 405 with Allow: GET, PATCH, even without a token', async () => {
    const { admin } = await newOrganization('methods');
    const detail = paths.personnelDetail(admin.personnel.sid);
    for (const api of [anonymous, admin.api]) {
      expectMethodNotAllowed(await api.put(detail, { title: 'x' }), ['GET', 'PATCH']);
      expectMethodNotAllowed(await api.delete(detail), ['GET', 'PATCH']);
      expectMethodNotAllowed(await api.post(detail, { title: 'x' }), ['GET', 'PATCH']);
    }
    expectStatus(await admin.api.get(detail), 200, 'the record is still there');
  });

  test('PUT, PATCH and DELETE on the list: 405 with Allow: GET, POST, for every serializer, even without a token', async () => {
    const { admin, org } = await newOrganization('listmethods');
    for (const serializer of ['name', 'list', 'detail', 'unknown']) {
      const list = paths.personnelList(org.sid, serializer);
      for (const api of [anonymous, admin.api]) {
        expectMethodNotAllowed(await api.put(list, {}), ['GET', 'POST'], `PUT ${serializer}`);
        expectMethodNotAllowed(await api.patch(list, {}), ['GET', 'POST'], `PATCH ${serializer}`);
        expectMethodNotAllowed(await api.delete(list), ['GET', 'POST'], `DELETE ${serializer}`);
      }
    }
    assert.equal((await listPersonnel(admin.api, org.sid)).length, 1);
  });
});

describe('the detail shape, whose metadata can be large, is read by its records\' real sizes', () => {
  test('a page of large and small records: every record once, whole, in order, and the same page in the list shape', async () => {
    const { admin, org } = await newOrganization('sized');
    const people = Array.from({ length: 11 }, (_, i) => ({ email: uniqueEmail(`sized${i}`), first_name: `S${i}`, last_name: 'Sized' }));
    expectStatus(await postPersonnel(admin.api, org.sid, people), 201);
    const listed = assertPage(await admin.api.get(paths.personnelList(org.sid, 'list', { page_size: 12 })), 'personnel.list').results;
    assert.equal(listed.length, 12);
    // Three records of four carry about 900 KB of metadata: 8.1 MB in all, three reads of the
    // embedded server's ANSWER_MAX_BYTES (4 MB: four large records a read, with the small ones
    // between them), one of PostgreSQL's (10 MB).
    const isLarge = (i: number) => i % 4 !== 3;
    const large = (i: number) => [`${i}:`.padEnd(900_000, String.fromCharCode(97 + i))];
    for (let i = 0; i < 12; i += 1) if (isLarge(i)) expectStatus(await admin.api.patch(paths.personnelDetail(listed[i].sid), { metadata: large(i) }), 200);
    const page = assertPage(await admin.api.get(paths.personnelList(org.sid, 'detail', { page_size: 12 })), 'personnel.detail');
    assert.deepEqual([page.count, page.page_count, page.results.length], [12, 1, 12]);
    assert.deepEqual(page.results.map((p) => p.sid), listed.map((p) => p.sid), 'every record once, in the list\'s order');
    page.results.forEach((p, i) => assert.deepEqual(p.metadata, isLarge(i) ? large(i) : [], `the metadata of record ${i}`));
    // Page 2 of 5 (records 5 to 9) starts where it should.
    const second = assertPage(await admin.api.get(paths.personnelList(org.sid, 'detail', { page_size: 5, page: 2 })), 'personnel.detail');
    assert.deepEqual(second.results.map((p) => p.sid), listed.slice(5, 10).map((p) => p.sid));
    second.results.forEach((p, i) => assert.equal(JSON.stringify(p.metadata).length, isLarge(5 + i) ? 900_004 : 2));
  });
});
