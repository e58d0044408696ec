// Organizations (design: listed and created at level=user; detail shows credits).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymous } from '../helpers/http.ts';
import {
  assertPage, assertShape, expectFieldErrors, expectForbidden, expectMethodNotAllowed, expectNotAuthenticated,
  expectNotFound, expectPlainText, expectStatus, MESSAGES,
} from '../helpers/assertions.ts';
import { addMember, createOrganization, isoDay, listPersonnel, newOrganization, newUser, paths, unique } from '../helpers/factories.ts';
import { INITIAL_CREDITS } from '../helpers/env.ts';

describe('organizations', () => {
  test('POST at level=user creates one: 201 detail shape, credits from INITIAL_CREDITS, the creator is its Admin', async () => {
    const owner = await newUser('orgowner');
    const name = `Lab ${unique('o')}`;
    const res = await owner.api.post(paths.organizationList(owner.sid, 'detail'), { name, description: 'Protein lab' });
    expectStatus(res, 201);
    assertShape(res.json, 'organization.detail');
    assert.equal(res.json.name, name);
    assert.equal(res.json.description, 'Protein lab');
    assert.equal(res.json.credits, `$${INITIAL_CREDITS}`);
    assert.equal(res.json.change_permission, true);
    assert.equal(res.json.date_created, res.json.date_updated);

    const people = await listPersonnel(owner.api, res.json.sid);
    assert.equal(people.length, 1);
    assert.equal(people[0].email, owner.email);
    assert.equal(people[0].first_name, owner.first_name);
    assert.equal(people[0].last_name, owner.last_name);
    assert.equal(people[0].is_administrator, true);
    assert.equal(people[0].is_archived, false);
    assert.equal(people[0].date_end, null);
  });

  test('POST answers the shape of the serializer in the path', async () => {
    const owner = await newUser('orgshapes');
    const named = await owner.api.post(paths.organizationList(owner.sid, 'name'), { name: 'Named' });
    expectStatus(named, 201);
    assertShape(named.json, 'organization.name');
    const listed = await owner.api.post(paths.organizationList(owner.sid, 'list'), { name: 'Listed' });
    expectStatus(listed, 201);
    assertShape(listed.json, 'organization.list');
  });

  test('the list at level=user shows the organizations where the caller is active personnel, oldest first', async () => {
    const owner = await newUser('orglist');
    const first = await createOrganization(owner, 'First');
    const second = await createOrganization(owner, 'Second');
    for (const serializer of ['name', 'list', 'detail'] as const) {
      const page = assertPage(await owner.api.get(paths.organizationList(owner.sid, serializer)), `organization.${serializer}`);
      assert.deepEqual(page.results.map((o) => o.sid), [first.sid, second.sid]);
      assert.equal(page.add_permission, true);
    }
    // A member sees it; an archived member and a member past date_end do not.
    const member = await addMember(owner, first);
    const archived = await addMember(owner, first, { is_archived: 'true' }, 'archived');
    const ended = await addMember(owner, first, { date_start: '2020-01-01', date_end: isoDay(-1) }, 'ended');
    const seen = assertPage(await member.api.get(paths.organizationList(member.sid, 'list')), 'organization.list');
    assert.deepEqual(seen.results.map((o) => [o.sid, o.change_permission]), [[first.sid, false]]);
    assert.equal(assertPage(await archived.api.get(paths.organizationList(archived.sid, 'list'))).count, 0);
    assert.equal(assertPage(await ended.api.get(paths.organizationList(ended.sid, 'list'))).count, 0);
  });

  test('another user\'s sid at level=user: 403; no token: 401; unknown level: 406', async () => {
    const owner = await newUser('orgprivate');
    const other = await newUser('orgother');
    expectForbidden(await other.api.get(paths.organizationList(owner.sid, 'list')));
    expectForbidden(await other.api.post(paths.organizationList(owner.sid, 'detail'), { name: 'Planted' }));
    assert.equal(assertPage(await owner.api.get(paths.organizationList(owner.sid, 'list'))).count, 0, 'nothing was created for the owner');
    assert.equal(assertPage(await other.api.get(paths.organizationList(other.sid, 'list'))).count, 0, 'nor for the caller');
    expectNotAuthenticated(await anonymous.get(paths.organizationList(owner.sid, 'list')));
    expectPlainText(await owner.api.get(paths.organizationList(owner.sid, 'list', undefined, 'project')), 406, MESSAGES.wrongLevel);
    expectPlainText(await owner.api.get(paths.organizationList(owner.sid, 'full')), 406, MESSAGES.wrongSerializer);
  });

  test('detail: Admin and Member read it (change_permission tells who may change it); an outsider gets 404', async () => {
    const { admin, org } = await newOrganization('orgdetail');
    const member = await addMember(admin, org);
    const outsider = await newUser('orgoutsider');
    const byAdmin = await admin.api.get(paths.organizationDetail(org.sid));
    expectStatus(byAdmin, 200);
    assertShape(byAdmin.json, 'organization.detail');
    assert.equal(byAdmin.json.change_permission, true);
    const byMember = await member.api.get(paths.organizationDetail(org.sid));
    expectStatus(byMember, 200);
    assert.deepEqual(byMember.json, { ...byAdmin.json, change_permission: false });
    expectNotFound(await outsider.api.get(paths.organizationDetail(org.sid)));
    expectNotFound(await outsider.api.patch(paths.organizationDetail(org.sid), { name: 'Taken' }));
    expectNotFound(await admin.api.get(paths.organizationDetail('0000000000000000')), 'an organization that does not exist');
    expectNotFound(await admin.api.get(paths.organizationDetail('not-a-sid')), 'a malformed sid');
    expectNotAuthenticated(await anonymous.get(paths.organizationDetail(org.sid)));
  });

  test('PATCH by the Admin: 200 with the change; by a Member or an Alumni: 403 and nothing changes', async () => {
    const { admin, org } = await newOrganization('orgpatch');
    const member = await addMember(admin, org);
    const alumni = await addMember(admin, org, { is_archived: 'true' }, 'alumni');
    const res = await admin.api.patch(paths.organizationDetail(org.sid), { name: 'Renamed lab', description: 'New description' });
    expectStatus(res, 200);
    assertShape(res.json, 'organization.detail');
    assert.equal(res.json.name, 'Renamed lab');
    assert.equal(res.json.description, 'New description');
    assert.equal(res.json.credits, `$${INITIAL_CREDITS}`);
    assert.ok(res.json.date_updated > res.json.date_created, 'date_updated moves on a change');

    const before = (await admin.api.get(paths.organizationDetail(org.sid))).json;
    expectForbidden(await member.api.patch(paths.organizationDetail(org.sid), { name: 'Member was here' }));
    expectForbidden(await alumni.api.patch(paths.organizationDetail(org.sid), { name: 'Alumni was here' }));
    expectForbidden(await alumni.api.get(paths.organizationDetail(org.sid)), 'an Alumni cannot read it either');
    assert.deepEqual((await admin.api.get(paths.organizationDetail(org.sid))).json, before);
  });

  test('credits cannot be changed through the API', async () => {
    const { admin, org } = await newOrganization('orgcredits');
    expectFieldErrors(await admin.api.patch(paths.organizationDetail(org.sid), { credits: '1000.00' }), { credits: ['Unknown field.'] });
    expectFieldErrors(await admin.api.post(paths.organizationList(admin.sid, 'detail'), { name: 'Rich', credits: '1000.00' }), { credits: ['Unknown field.'] });
    assert.equal((await admin.api.get(paths.organizationDetail(org.sid))).json.credits, `$${INITIAL_CREDITS}`);
  });

  test('bad bodies: 400 with field errors, nothing written', async () => {
    const { admin, org } = await newOrganization('orgbad');
    const list = paths.organizationList(admin.sid, 'detail');
    expectFieldErrors(await admin.api.post(list, {}), { name: ['This field is required.'] });
    expectFieldErrors(await admin.api.post(list, { name: '' }), { name: ['This field may not be blank.'] });
    expectFieldErrors(await admin.api.post(list, { name: 'x'.repeat(256) }), { name: ['Ensure this field has no more than 255 characters.'] });
    expectFieldErrors(await admin.api.post(list, { name: ['a'] }), { name: ['Must be of type string.'] });
    expectFieldErrors(await admin.api.post(list, { name: 'Nul\u0000Lab' }), { name: [MESSAGES.nulCharacter] });
    const page = assertPage(await admin.api.get(paths.organizationList(admin.sid, 'name')));
    assert.deepEqual(page.results.map((o) => o.sid), [org.sid], 'only the organization made by the factory exists');

    const before = (await admin.api.get(paths.organizationDetail(org.sid))).json;
    expectFieldErrors(await admin.api.patch(paths.organizationDetail(org.sid), { name: '' }), ['name']);
    expectFieldErrors(await admin.api.patch(paths.organizationDetail(org.sid), { description: 'd'.repeat(10_001) }), ['description']);
    expectFieldErrors(await admin.api.patch(paths.organizationDetail(org.sid), { description: 'a\u0000b' }), { description: [MESSAGES.nulCharacter] });
    expectFieldErrors(await admin.api.patch(paths.organizationDetail(org.sid), ['name']), { non_field_errors: ['Expected a JSON object.'] });
    assert.deepEqual((await admin.api.get(paths.organizationDetail(org.sid))).json, before);
  });

  test('methods not offered: 405 with Allow, even without a token', async () => {
    expectMethodNotAllowed(await anonymous.put(paths.organizationDetail('a'.repeat(16)), {}), ['GET', 'PATCH']);
    expectMethodNotAllowed(await anonymous.delete(paths.organizationDetail('a'.repeat(16))), ['GET', 'PATCH']);
    expectMethodNotAllowed(await anonymous.delete(paths.organizationList('a'.repeat(16), 'list')), ['GET', 'POST']);
  });
});
