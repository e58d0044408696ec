// Bad input across accounts, organizations and personnel: always a 4xx with a clear
// message, never a 500, and nothing written (design: "Errors are never 500 for bad input").
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous, type Answer } from '../helpers/http.ts';
import {
  MESSAGES, expectDetail, expectFieldErrors, expectNotFound, expectPlainText, expectStatus,
} from '../helpers/assertions.ts';
import {
  PATHS, addMember, authenticate, expectNoAccount, getPersonnel, listPersonnel, newOrganization, paths, signup, strongPassword,
  uniqueEmail, type TestMember,
} from '../helpers/factories.ts';

const UNSUPPORTED = (type: string) => `Unsupported media type "${type}" in request; send application/json.`;

describe('bad input on personnel', () => {
  let admin: TestMember;
  let member: TestMember;
  let org: { sid: string };
  let people: unknown[];
  let memberRecord: unknown;

  before(async () => {
    ({ admin, org } = await newOrganization('badinput'));
    member = await addMember(admin, org);
    people = await listPersonnel(admin.api, org.sid);
    memberRecord = await getPersonnel(admin.api, member.personnel.sid);
  });

  /** Nothing in the organization changed. */
  async function unchanged() {
    assert.deepEqual(await listPersonnel(admin.api, org.sid), people, 'the personnel list is unchanged');
    assert.deepEqual(await getPersonnel(admin.api, member.personnel.sid), memberRecord, 'the member is unchanged');
  }
  const post = (body: unknown) => admin.api.post(paths.personnelList(org.sid, 'detail'), body);
  const patch = (body: unknown) => admin.api.patch(paths.personnelDetail(member.personnel.sid), body);

  test('wrong types on POST: 400 naming each field', async () => {
    const email = uniqueEmail('types');
    expectFieldErrors(await post({ email: 5 }), { email: ['Must be of type string.'] });
    expectFieldErrors(await post({ email, is_administrator: 1 }), { is_administrator: ['Invalid value.'] });
    expectFieldErrors(await post({ email, is_administrator: 'yes' }), { is_administrator: ['Invalid value.'] });
    expectFieldErrors(await post({ email, is_archived: null }), { is_archived: ['Invalid value.'] });
    expectFieldErrors(await post({ email, title: null }), { title: ['Must be of type string.'] });
    expectFieldErrors(await post({ email, title: { text: 'x' } }), { title: ['Must be of type string.'] });
    expectFieldErrors(await post({ email, date_start: '15/01/2024' }), { date_start: ['Enter a value in the expected format.'] });
    expectFieldErrors(await post({ email, date_start: '2024-13-45' }), { date_start: ['Enter a real date as YYYY-MM-DD.'] });
    expectFieldErrors(await post({ email, date_start: '2024-02-30' }), { date_start: ['Enter a real date as YYYY-MM-DD.'] });
    expectFieldErrors(await post({ email, date_start: '2024-05-01', date_end: '2024-04-30' }),
      { date_end: ['The end date cannot be before the start date.'] });
    expectFieldErrors(await post({ email: 'not an email' }), { email: ['Enter a valid email.'] });
    expectFieldErrors(await post({ title: 'No email' }), { email: ['This field is required.'] });
    await unchanged();
    await expectNoAccount(email); // no account was made for the refused email
  });

  test('wrong types on PATCH: 400 naming each field', async () => {
    expectFieldErrors(await patch({ title: 7 }), { title: ['Must be of type string.'] });
    expectFieldErrors(await patch({ is_archived: 'maybe' }), { is_archived: ['Invalid value.'] });
    expectFieldErrors(await patch({ date_end: 'tomorrow' }), { date_end: ['Invalid value.'] });
    expectFieldErrors(await patch({ date_end: '2020-01-01' }), { date_end: ['The end date cannot be before the start date.'] });
    expectFieldErrors(await patch({ metadata: 'text' }), { metadata: ['Must be of type array.'] });
    expectFieldErrors(await patch({ metadata: Array.from({ length: 101 }, (_, i) => i) }), { metadata: ['Ensure this field has no more than 100 elements.'] });
    expectFieldErrors(await patch({ dashboard: [{ link: 1, note: 'n' }] }), { 'dashboard.0.link': ['Must be of type string.'] });
    expectFieldErrors(await patch({ dashboard: [{ link: 'l' }] }), { 'dashboard.0.note': ['This field is required.'] });
    expectFieldErrors(await patch({ dashboard: [{ link: 'l', note: 'n', color: 'red' }] }), { 'dashboard.0.color': ['Unknown field.'] });
    expectFieldErrors(await patch({ should_receive_weekly_digest: 'on' }), { should_receive_weekly_digest: ['Invalid value.'] });
    expectFieldErrors(await patch({ email: 'nope' }), { email: ['Enter a valid email.'] });
    await unchanged();
  });

  test('unknown fields: 400 "Unknown field." and nothing written', async () => {
    expectFieldErrors(await post({ email: uniqueEmail('unknown'), role: 'owner' }), { role: ['Unknown field.'] });
    expectFieldErrors(await post([{ email: uniqueEmail('unknown'), password: 'x' }]), { '0.password': ['Unknown field.'] });
    expectFieldErrors(await patch({ sid: 'aaaaaaaaaaaaaaaa' }), { sid: ['Unknown field.'] });
    expectFieldErrors(await patch({ organization: 'x', title: 'ok' }), { organization: ['Unknown field.'] });
    expectFieldErrors(await patch({ is_use_single_sign_on: true }), { is_use_single_sign_on: ['Unknown field.'] });
    await unchanged();
  });

  test('strings over the limits: 400 with the limit, nothing written', async () => {
    const email = uniqueEmail('long');
    expectFieldErrors(await post({ email, title: 't'.repeat(256) }), { title: ['Ensure this field has no more than 255 characters.'] });
    expectFieldErrors(await post({ email, first_name: 'f'.repeat(151) }), { first_name: ['Ensure this field has no more than 150 characters.'] });
    expectFieldErrors(await post({ email: `${'e'.repeat(250)}@x.test` }), ['email']);
    expectFieldErrors(await patch({ last_name: 'l'.repeat(151) }), { last_name: ['Ensure this field has no more than 150 characters.'] });
    expectFieldErrors(await patch({ dashboard: [{ link: 'h'.repeat(2001), note: '' }] }), { 'dashboard.0.link': ['Ensure this field has no more than 2000 characters.'] });
    expectFieldErrors(await post(Array.from({ length: 101 }, () => ({ email: uniqueEmail('many') }))),
      { non_field_errors: ['Ensure this field has no more than 100 elements.'] });
    // Over the body limit (1 MB): 413 before anything is parsed.
    const huge = await patch({ title: 'x'.repeat(2 * 1024 * 1024) });
    expectDetail(huge, 413, 'Request body is too large.');
    await unchanged();
  });

  test('an empty array, a JSON array or scalar where an object is expected: 400', async () => {
    expectFieldErrors(await post([]), { non_field_errors: ['Ensure this field has at least 1 element.'] });
    expectFieldErrors(await post([1, 2]), { 0: ['Must be of type object.'], 1: ['Must be of type object.'] });
    expectFieldErrors(await post('person'), { non_field_errors: ['Invalid value.'] });
    expectFieldErrors(await patch([]), { non_field_errors: ['Expected a JSON object.'] });
    expectFieldErrors(await patch([{ title: 'x' }]), { non_field_errors: ['Expected a JSON object.'] });
    expectFieldErrors(await patch('title'), { non_field_errors: ['Expected a JSON object.'] });
    expectFieldErrors(await patch(42), { non_field_errors: ['Expected a JSON object.'] });
    expectFieldErrors(await patch(null), { non_field_errors: ['Expected a JSON object.'] });
    await unchanged();
  });

  test('malformed JSON or an empty body: 400 with a clear detail', async () => {
    const raw = (method: 'POST' | 'PATCH', rawBody: string) => admin.api.request(method,
      method === 'POST' ? paths.personnelList(org.sid, 'detail') : paths.personnelDetail(member.personnel.sid),
      { rawBody, contentType: 'application/json' });
    expectDetail(await raw('POST', '{"email": '), 400, MESSAGES.notJson);
    expectDetail(await raw('PATCH', '{title: "x"}'), 400, MESSAGES.notJson);
    expectDetail(await raw('PATCH', "{'title': 'x'}"), 400, MESSAGES.notJson);
    expectDetail(await raw('PATCH', '{"title": "x"} trailing'), 400, MESSAGES.notJson);
    expectDetail(await raw('PATCH', ''), 400, 'The request body is empty; send a JSON object.');
    expectDetail(await raw('PATCH', '{"title": "\\x"}'), 400, MESSAGES.notJson);
    await unchanged();
  });

  test('text/plain, form and other media types: 415', async () => {
    const send = (contentType: string, rawBody: string) =>
      admin.api.request('PATCH', paths.personnelDetail(member.personnel.sid), { rawBody, contentType });
    expectDetail(await send('text/plain', '{"title": "x"}'), 415, UNSUPPORTED('text/plain'));
    expectDetail(await send('application/x-www-form-urlencoded', 'title=x'), 415, UNSUPPORTED('application/x-www-form-urlencoded'));
    expectDetail(await send('application/xml', '<title>x</title>'), 415, UNSUPPORTED('application/xml'));
    expectDetail(await admin.api.request('POST', paths.personnelList(org.sid, 'detail'), { rawBody: 'email=a@b.test', contentType: 'text/plain' }),
      415, UNSUPPORTED('text/plain'));
    await unchanged();
  });

  test('a NUL character anywhere in the body: 400 naming the field, nothing written', async () => {
    const email = uniqueEmail('nul');
    expectFieldErrors(await post({ email, title: 'Chem\u0000ist' }), { title: [MESSAGES.nulCharacter] });
    expectFieldErrors(await post([{ email }, { email: uniqueEmail('nul2'), last_name: '\u0000' }]), { '1.last_name': [MESSAGES.nulCharacter] });
    expectFieldErrors(await patch({ first_name: 'A\u0000' }), { first_name: [MESSAGES.nulCharacter] });
    expectFieldErrors(await patch({ metadata: [{ note: 'x\u0000y' }] }), { 'metadata.0.note': [MESSAGES.nulCharacter] });
    expectFieldErrors(await patch({ metadata: [{ 'k\u0000': 1 }] }), { 'metadata.0.k\u0000': [MESSAGES.nulCharacter] });
    expectFieldErrors(await patch({ dashboard: [{ link: '\u0000', note: '' }] }), { 'dashboard.0.link': [MESSAGES.nulCharacter] });
    expectFieldErrors(await member.api.patch(paths.personnelDetail(member.personnel.sid), { last_name: 'x\u0000' }), { last_name: [MESSAGES.nulCharacter] });
    await unchanged();
    await expectNoAccount(email); // no account was made for the refused email
  });

  test('an unpaired surrogate ("\\ud800" alone) anywhere in the body: 400 naming the field, nothing written (the fuzz found it a 500 in a row\'s metadata)', async () => {
    const SURROGATE = 'Not valid Unicode: an unpaired surrogate (\\ud800–\\udfff alone); send each character whole.';
    const email = uniqueEmail('surrogate');
    expectFieldErrors(await post({ email, title: 'Chem\ud800ist' }), { title: [SURROGATE] });
    expectFieldErrors(await patch({ metadata: [{ note: '\udc00' }] }), { 'metadata.0.note': [SURROGATE] });
    expectFieldErrors(await patch({ metadata: [{ ['k\ud800']: 1 }] }), { 'metadata.0.k\ud800': [SURROGATE] });
    await unchanged();
    await expectNoAccount(email);
  });

  test('a NUL character or junk in the query string: 400, never 500', async () => {
    expectFieldErrors(await admin.api.get(paths.personnelList(org.sid, 'list', { page_size: '5', search: 'a\u0000b' })), { search: [MESSAGES.nulCharacter] });
    expectFieldErrors(await admin.api.get(`${paths.personnelList(org.sid, 'list')}?page=%00`), ['page']);
    expectStatus(await admin.api.get(`${paths.personnelList(org.sid, 'list')}?page=1&page=2`), 400, 'a repeated page parameter');
  });

  // Found by the fuzz test (test/modules/fuzz.test.ts): each was a 500, or hung the server.
  test('names an object inherits (constructor, __proto__, toString) as a level or a field: 406 or 400, never 500', async () => {
    for (const level of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      for (const serializer of ['list', 'detail', 'full']) {
        expectPlainText(await admin.api.get(paths.personnelList(org.sid, serializer, undefined, level)), 406, MESSAGES.wrongLevel, `GET level ${level}`);
        expectPlainText(await admin.api.post(paths.personnelList(org.sid, serializer, undefined, level), { email: uniqueEmail('proto') }), 406, MESSAGES.wrongLevel, `POST level ${level}`);
      }
    }
    for (const field of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expectFieldErrors(await post({ email: uniqueEmail('proto'), [field]: 'x' }), { [field]: ['Unknown field.'] });
      expectFieldErrors(await patch({ [field]: { a: 1 } }), { [field]: ['Unknown field.'] });
    }
    expectDetail(await post({ email: uniqueEmail('proto'), ['__proto__']: { is_administrator: true } }), 400, MESSAGES.notJson);
    await unchanged();
  });

  test('values nested deeper than 32 levels: 400 naming the field, at any depth the body limit allows', async () => {
    // Sent as text: JSON.stringify itself cannot write what the server must refuse.
    const patchRaw = (metadata: string) => admin.api.request('PATCH', paths.personnelDetail(member.personnel.sid), {
      rawBody: `{"metadata": ${metadata}}`, contentType: 'application/json',
    });
    const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const tooDeep = 'Nested too deeply: at most 32 levels of arrays and objects.';
    for (const depth of [32, 1_000, 100_000]) {
      expectFieldErrors(await patchRaw(`[${arrays(depth)}]`), { metadata: [tooDeep] }, `metadata nested ${depth} deep`);
    }
    expectFieldErrors(await patchRaw(`[${'{"a":'.repeat(150_000)}1${'}'.repeat(150_000)}]`), { metadata: [tooDeep] }, 'objects nested 150,000 deep');
    await unchanged();
    expectStatus(await patchRaw(`[${arrays(30)}]`), 200, '32 levels (the body, metadata, 30 more) are taken');
    expectStatus(await patch({ metadata: [] }), 200);
    // The two accepted PATCHes changed date_updated: the new state is the one to keep.
    memberRecord = await getPersonnel(admin.api, member.personnel.sid);
    people = await listPersonnel(admin.api, org.sid);
  });

  test('an array of 200,000 items where 100 are taken: a prompt 400 listing at most 100 fields', async () => {
    const started = Date.now();
    const res = await post(Array.from({ length: 200_000 }, () => 0));
    assert.ok(Date.now() - started < 5_000, `answered in ${Date.now() - started} ms`);
    expectStatus(res, 400);
    assert.deepEqual(res.json.non_field_errors, ['Ensure this field has no more than 100 elements.', 'More fields have errors; only the first 100 are listed.']);
    assert.equal(Object.keys(res.json).length, 100, 'the first 99 items, and non_field_errors');
    assert.deepEqual(res.json['0'], ['Must be of type object.']);
    const items = await post(Array.from({ length: 20_000 }, () => ({ email: 'not an email', is_administrator: 1 })));
    expectStatus(items, 400);
    assert.deepEqual(items.json['0.email'], ['Enter a valid email.']);
    assert.deepEqual(items.json['0.is_administrator'], ['Invalid value.']);
    assert.ok(!('100.email' in items.json), 'items past the limit are not listed');
    await unchanged();
  });

  test('malformed sids in paths: 404 on details, 406 on lists; never 500', async () => {
    for (const sid of ['abc', 'a'.repeat(17), 'a'.repeat(400), 'not a sid', '%', '\u00e9'.repeat(16), "a' OR '1'='1"]) {
      expectNotFound(await admin.api.get(paths.personnelDetail(sid)), `GET detail ${sid}`);
      expectNotFound(await admin.api.patch(paths.personnelDetail(sid), { title: 'x' }), `PATCH detail ${sid}`);
      expectPlainText(await admin.api.get(paths.personnelList(sid, 'list')), 406, MESSAGES.wrongId, `list ${sid}`);
    }
    expectFieldErrors(await admin.api.get(paths.personnelDetail('a\u0000b')), { sid: [MESSAGES.nulCharacter] });
    await unchanged();
  });
});

describe('bad input on accounts', () => {
  test('signup: wrong types, huge values, NUL characters and media types are refused, nothing written', async () => {
    const email = uniqueEmail('badsignup');
    const password = strongPassword();
    expectFieldErrors(await signup({ email, password: 12345678 }), { password: ['Must be of type string.'] });
    expectFieldErrors(await signup({ email, password: 'p'.repeat(129) }), { password: ['Ensure this field has no more than 128 characters.'] });
    expectFieldErrors(await signup({ email, password, first_name: 'f'.repeat(151) }), { first_name: ['Ensure this field has no more than 150 characters.'] });
    expectFieldErrors(await signup({ email, password, first_name: 'Nul\u0000' }), { first_name: [MESSAGES.nulCharacter] });
    expectFieldErrors(await signup({ email, password: `${password}\u0000` }), { password: [MESSAGES.nulCharacter] });
    expectFieldErrors(await signup([{ email, password }]), { non_field_errors: ['Expected a JSON object.'] });
    expectDetail(await anonymous.post(PATHS.signup, undefined, { rawBody: JSON.stringify({ email, password }), contentType: 'text/plain' }),
      415, UNSUPPORTED('text/plain'));
    expectDetail(await anonymous.post(PATHS.signup, undefined, { rawBody: '{"email":', contentType: 'application/json' }), 400, MESSAGES.notJson);
    // None of it made the account.
    await expectNoAccount(email);
  });

  test('auth, forgetpassword and resetpassword with bad input: 400 or 415, never 500', async () => {
    const checks: Array<[Promise<Answer>, number]> = [
      [anonymous.post(PATHS.auth, { username: 'a\u0000@x.test', password: 'whatever-pass' }), 400],
      [anonymous.post(PATHS.auth, { username: 'a@x.test', password: 'pass\u0000word' }), 400],
      [anonymous.post(PATHS.auth, { username: 'u'.repeat(255), password: 'x' }), 400],
      [anonymous.post(PATHS.auth, { username: 'a@x.test', password: 7 }), 400],
      [anonymous.post(PATHS.auth, ['a@x.test', 'pw']), 400],
      [anonymous.post(PATHS.auth, undefined, { rawBody: 'username=a&password=b', contentType: 'application/x-www-form-urlencoded' }), 415],
      [anonymous.post(PATHS.forgetpassword, { email: 'a\u0000@x.test' }), 400],
      [anonymous.post(PATHS.forgetpassword, { email: 'e'.repeat(255) }), 400],
      [anonymous.post(PATHS.forgetpassword, {}), 400],
      [anonymous.post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: 'a\u0000b' } }), 400],
      [anonymous.post(PATHS.resetpassword, { password: strongPassword() }, { query: { tag: 't'.repeat(201) } }), 400],
      [anonymous.post(PATHS.resetpassword, { password: strongPassword(), tag: 'x' }, { query: { tag: 'x' } }), 400],
    ];
    for (const [pending, status] of checks) {
      const res = await pending;
      expectStatus(res, status);
      assert.ok(res.json && typeof res.json === 'object' && Object.keys(res.json).length > 0, `a clear message: ${res.text}`);
    }
  });

  test('NUL in a sign-in name does not count as a failed attempt against anyone', async () => {
    const email = uniqueEmail('nulauth');
    const password = strongPassword();
    expectStatus(await signup({ email, password }), 201);
    for (let i = 0; i < 12; i += 1) {
      expectFieldErrors(await anonymous.post(PATHS.auth, { username: `${email}\u0000`, password: 'x' }), { username: [MESSAGES.nulCharacter] });
    }
    expectStatus(await authenticate(email, password), 200);
  });
});
