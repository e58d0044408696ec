// An account that has not proved its email names another (issue 22, point 2: the screen of
// an unproven account offers "change address"): POST /accounts/changeemail/. Nothing changes
// until the new address is proved by its link; the answer and the pending address are the
// same whether or not the address has an account; an account an organization added by its
// address keeps it (an invitation cannot be moved to an address of the squatter's).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Api, anonymous } from '../helpers/http.ts';
import { MESSAGES, expectDetail, expectFieldErrors, expectStatus } from '../helpers/assertions.ts';
import {
  PATHS, PROOF_SUBJECT, authenticate, newOrganization, newUser, postPersonnel, signup, strongPassword, uniqueEmail,
} from '../helpers/factories.ts';
import { readMail } from '../helpers/mail.ts';

const CHANGE = '/accounts/changeemail/';
const SESSION = '/accounts/session/';
const INVITED = 'An organization added this account by its address: prove that address with the link of its invitation.';
const sent = (email: string) => `A link that proves ${email} was mailed to it: opening it makes ${email} your sign-in address.`;

/** A signed-up account that has not proved its email (its proof mail read and ignored). */
async function unproven(label: string) {
  const email = uniqueEmail(label);
  const password = strongPassword();
  expectStatus(await signup({ email, password, first_name: 'Typo', last_name: 'Maker' }), 201);
  const mail = await readMail(email, { subject: PROOF_SUBJECT });
  const signedIn = expectStatus(await authenticate(email, password), 200);
  return { email, password, sid: signedIn.json.user.sid as string, api: new Api(signedIn.json.token), firstTag: mail.verifyTag! };
}

const sessionOf = async (api: Api) => expectStatus(await api.get(SESSION), 200, 'an unproven account reads its session').json.user;

describe('changing the address of an unproven account', () => {
  test('the new address is mailed a link; opening it makes it the sign-in email and proves it', async () => {
    const account = await unproven('typo');
    const fixed = uniqueEmail('fixed');
    expectDetail(await account.api.post(CHANGE, { email: fixed }), 200, sent(fixed));
    assert.deepEqual(await sessionOf(account.api), {
      sid: account.sid, first_name: 'Typo', last_name: 'Maker', email: account.email,
      is_email_verified: false, pending_email: fixed, is_instance_admin: false,
    }, 'nothing changes before the proof');
    const mail = await readMail(fixed, { subject: PROOF_SUBJECT });
    assert.ok(mail.verifyTag);
    assert.match(mail.body, /with .+ instead of the address they signed up with\.\n/, 'the mail says what the link does');
    assert.match(mail.body, /It then becomes the account's sign-in address/);
    expectDetail(await anonymous.post(PATHS.verifyemail, undefined, { query: { tag: mail.verifyTag } }), 200, 'Email verified.');
    assert.deepEqual(await sessionOf(account.api), {
      sid: account.sid, first_name: 'Typo', last_name: 'Maker', email: fixed, is_email_verified: true, pending_email: null, is_instance_admin: false,
    }, 'the same session, now proved, with the new address');
    expectStatus(await authenticate(fixed, account.password), 200, 'signs in with the new address');
    expectDetail(await authenticate(account.email, account.password), 406, MESSAGES.badCredentials, 'not with the old one');
    expectStatus(await account.api.get(`/organizations/organization/list/user/${account.sid}/name/`), 200, 'and may do more than prove it');
    expectDetail(await account.api.post(CHANGE, { email: uniqueEmail('again') }), 403,
      'Your email address is proved: it is your sign-in address and cannot be changed here.');
  });

  test('an address with an account: the same answer and pending address; its owner is told, and the link goes nowhere', async () => {
    const owner = await newUser('owner');
    const account = await unproven('prober');
    expectDetail(await account.api.post(CHANGE, { email: owner.email.toUpperCase() }), 200, sent(owner.email.toUpperCase()));
    assert.equal((await sessionOf(account.api)).pending_email, owner.email.toUpperCase());
    const told = await readMail(owner.email);
    assert.match(told.subject, /already have/i);
    assert.equal(told.verifyTag, null, 'no link that would move the address');
    // The old link still proves the old address.
    expectDetail(await anonymous.post(PATHS.verifyemail, undefined, { query: { tag: account.firstTag } }), 200, 'Email verified.');
    const after = await sessionOf(account.api);
    assert.equal(after.email, account.email);
    assert.equal(after.pending_email, null);
  });

  test('an address taken between the request and the link: the link is refused and nothing changes', async () => {
    const account = await unproven('slow');
    const wanted = uniqueEmail('wanted');
    expectStatus(await account.api.post(CHANGE, { email: wanted }), 200);
    const mail = await readMail(wanted, { subject: PROOF_SUBJECT });
    expectStatus(await signup({ email: wanted, password: strongPassword() }), 201, 'someone signs up with it meanwhile');
    expectFieldErrors(await anonymous.post(PATHS.verifyemail, undefined, { query: { tag: mail.verifyTag! } }),
      { tag: ['Another account has this address by now: sign in with that one.'] });
    const after = await sessionOf(account.api);
    assert.equal(after.email, account.email);
    assert.equal(after.is_email_verified, false);
  });

  test('an account an organization added by its address keeps it (the squatter of an invitation)', async () => {
    const { admin, org } = await newOrganization('inviter');
    // Signed up first with the address the Admin adds; asks to move it before and after the Admin adds it.
    const squatter = await unproven('squat');
    const mine = uniqueEmail('mine');
    expectStatus(await squatter.api.post(CHANGE, { email: mine }), 200, 'not added yet');
    const link = await readMail(mine, { subject: PROOF_SUBJECT });
    expectStatus(await postPersonnel(admin.api, org.sid, { email: squatter.email, first_name: 'New', last_name: 'Hire' }), 201);
    expectDetail(await squatter.api.post(CHANGE, { email: uniqueEmail('other') }), 403, INVITED);
    expectFieldErrors(await anonymous.post(PATHS.verifyemail, undefined, { query: { tag: link.verifyTag! } }), { tag: [INVITED] });
    const after = await sessionOf(squatter.api);
    assert.equal(after.email, squatter.email, 'the invitation stays with the address it was sent to');
    assert.equal(after.is_email_verified, false);
  });

  test('a bad address is 400; no credential 401', async () => {
    const account = await unproven('bad');
    expectFieldErrors(await account.api.post(CHANGE, { email: 'not an address' }), ['email']);
    expectFieldErrors(await account.api.post(CHANGE, {}), { email: ['This field is required.'] });
    expectDetail(await anonymous.post(CHANGE, { email: uniqueEmail('x') }), 401, MESSAGES.notAuthenticated);
  });
});
