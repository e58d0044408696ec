// Proving an email (issue 11, points 1, 2 and 4; design: "Proving an email"): an address
// counts only once its owner has proved it by the link mailed to it; personnel added by
// email give access only to the account that proved that email; a changed email is
// unproven until confirmed and gets no mail meanwhile; links in mail come from the
// configuration, never from a request's Host header. Mail is read from the .eml files the
// server writes under DATA_DIR/mail.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Api, anonymous } from '../helpers/http.ts';
import { MESSAGES, expectDetail, expectFieldErrors, expectInvalidToken, expectStatus } from '../helpers/assertions.ts';
import {
  PATHS, PROOF_SUBJECT, addMember, authenticate, newOrganization, newUser, paths, postPersonnel, signup, strongPassword, uniqueEmail,
} from '../helpers/factories.ts';
import { mailTo, readMail } from '../helpers/mail.ts';
import { BASE_URL } from '../helpers/env.ts';
import { peerRequest } from '../helpers/peer.ts';

const notificationList = (orgSid: string) => `/notifications/notification/list/organization/${orgSid}/detail/`;

describe('proving an email', () => {
  test('the mailed link proves the address once; a bad or used tag is 400; a new link can be asked for', async () => {
    const email = uniqueEmail('prove');
    const password = strongPassword();
    expectStatus(await signup({ email, password }), 201);
    const first = await readMail(email, { subject: PROOF_SUBJECT });
    assert.ok(first.verifyTag, first.body);
    assert.ok(first.body.includes(`POST ${BASE_URL}/accounts/verifyemail/?tag=${first.verifyTag}`), `a link to the configured server:\n${first.body}`);

    const auth = await authenticate(email, password);
    expectStatus(auth, 200, 'an unproven account signs in');
    const api = new Api(auth.json.token);
    expectDetail(await api.post(paths.apikeyList(auth.json.user.sid, 'detail'), { name: 'too early' }), 403, MESSAGES.emailNotVerified,
      'no API key before the proof');
    // A new link, while unproven: the old one stays valid until one is used.
    const resent = await api.post(PATHS.resendproof);
    expectDetail(resent, 200, 'Verification e-mail has been sent.');
    const second = await readMail(email, { subject: PROOF_SUBJECT });
    assert.notEqual(second.verifyTag, first.verifyTag);

    expectFieldErrors(await anonymous.post(PATHS.verifyemail, undefined, { query: { tag: 'not-a-tag' } }),
      { tag: ['This link is invalid, used or expired; ask for a new one.'] });
    expectFieldErrors(await anonymous.post(PATHS.verifyemail), { tag: ['This field is required.'] });
    expectDetail(await anonymous.post(PATHS.verifyemail, undefined, { query: { tag: second.verifyTag } }), 200, 'Email verified.');
    expectFieldErrors(await anonymous.post(PATHS.verifyemail, undefined, { query: { tag: second.verifyTag } }), ['tag'], 'a tag is single-use');
    expectStatus(await api.post(paths.apikeyList(auth.json.user.sid, 'detail'), { name: 'now' }), 201, 'the same token, once proved');
    expectDetail(await api.post(PATHS.resendproof), 200, 'Email already verified.');
  });

  test('an invitation cannot be taken over by signing up first (issue 11, 1)', async () => {
    const { admin, org } = await newOrganization('victimadmin');
    const hire = uniqueEmail('new.hire');
    // The attacker signs up with the new hire's address before the Admin adds it.
    const attackerPassword = strongPassword();
    expectStatus(await signup({ email: hire, password: attackerPassword }), 201);
    await readMail(hire, { subject: PROOF_SUBJECT }); // the attacker cannot read it; the owner ignores it
    const attacker = await authenticate(hire, attackerPassword);
    expectStatus(attacker, 200);
    const stolen = new Api(attacker.json.token);
    expectDetail(await stolen.post(paths.apikeyList(attacker.json.user.sid, 'detail'), { name: 'keep reading' }), 403, MESSAGES.emailNotVerified,
      'the squatter gets no API key');

    const added = await postPersonnel(admin.api, org.sid, { email: hire, first_name: 'New', last_name: 'Hire' });
    expectStatus(added, 201);
    // The account exists but is unproven: the invitation goes out anyway, to the real owner.
    const invitation = await readMail(hire, { subject: /^You are invited to/ });
    assert.ok(invitation.tag, invitation.body);
    for (const scheme of ['token', 'Token'] as const) {
      expectDetail(await stolen.via(scheme).get(paths.personnelList(org.sid, 'list')), 403, MESSAGES.emailNotVerified,
        `the squatter reads nothing of the organization (${scheme})`);
    }
    expectDetail(await stolen.get(paths.organizationDetail(org.sid)), 403, MESSAGES.emailNotVerified);

    // The owner accepts the invitation: it sets the password, proves the address and ends every session.
    const ownerPassword = strongPassword();
    expectStatus(await anonymous.post(PATHS.resetpassword, { password: ownerPassword }, { query: { tag: invitation.tag } }), 200);
    expectInvalidToken(await stolen.get(PATHS.checktoken), "the squatter's session ended");
    expectStatus(await authenticate(hire, attackerPassword), 406, "the squatter's password is gone");
    const owner = await authenticate(hire, ownerPassword);
    expectStatus(owner, 200);
    const page = await new Api(owner.json.token).get(paths.personnelList(org.sid, 'list'));
    expectStatus(page, 200, 'the owner is a member');
    assert.ok(page.json.results.some((p: { email: string }) => p.email === hire));
  });

  test('a proven account added by email is a member at once; its one invitation carries no tag (it has a password), only the accept link', async () => {
    const { admin, org } = await newOrganization('plainadmin');
    const member = await addMember(admin, org, {}, 'member', { accept: false });
    expectStatus(await member.api.get(paths.personnelList(org.sid, 'name')), 200);
    const invitation = await readMail(member.email, { subject: /^You are invited to/ });
    assert.equal(invitation.tag, null, 'no tag that sets a password');
    assert.ok(invitation.body.includes(`/organizations/personnel/detail/${member.personnel.sid}/accept/`), invitation.body);
  });

  test('a member cannot have the service mail an address they have not proved (issue 11, 4)', async () => {
    const { admin, org } = await newOrganization('mailadmin');
    const member = await addMember(admin, org);
    const victim = uniqueEmail('victim');
    const changed = await member.api.patch(paths.personnelDetail(member.personnel.sid), { email: victim });
    expectStatus(changed, 200);
    assert.equal(changed.json.email, victim, 'the contact address is changed');
    const proof = await readMail(victim, { subject: PROOF_SUBJECT });
    assert.match(proof.body, /made .* their contact address/);

    const subject = `Buy now ${uniqueEmail('spam')}`;
    expectStatus(await member.api.post(notificationList(org.sid), {
      to: [{ sid: member.personnel.sid }], name: subject, body: 'Text of the member\'s choosing', should_email: true,
    }), 201);
    // A barrier: mail queued after it to a proven address arrives, so the first would have too.
    expectStatus(await member.api.post(notificationList(org.sid), {
      to: [{ sid: admin.personnel.sid }], name: `barrier ${subject}`, body: 'x', should_email: true,
    }), 201);
    await readMail(admin.email, { subject: /^barrier/ });
    await sleep(1000);
    assert.deepEqual(mailTo(victim).map((m) => m.subject), [proof.subject], 'only the proof reached the unproven address');

    // Once its owner proves it, it gets mail.
    expectDetail(await anonymous.post(PATHS.verifyemail, undefined, { query: { tag: proof.verifyTag } }), 200, 'Email verified.');
    expectStatus(await admin.api.post(notificationList(org.sid), {
      to: [{ sid: member.personnel.sid }], name: `after ${subject}`, body: 'hello', should_email: true,
    }), 201);
    // (The subject is quoted as linkless text: the address in it is broken, docs/decisions.md "Consent before mail".)
    assert.equal((await readMail(victim, { subject: /^after / })).subject, `after ${subject}`.replace('@', '[at]').replace(/\.(?=\S)/g, '[.]'));
  });
});

describe('links in mail come from the configuration (issue 11, 2)', () => {
  test('a Host header of the attacker\'s changes no emailed link: reset, proof and invitation', async () => {
    const hostile = { host: 'attacker.example' };
    const user = await newUser('hostreset');
    const forgot = await peerRequest('POST', PATHS.forgetpassword, { body: { email: user.email }, headers: hostile });
    assert.equal(forgot.status, 200, forgot.text);
    const reset = await readMail(user.email);
    assert.ok(reset.tag, reset.body);
    assert.ok(!reset.body.includes('attacker.example'), reset.body);
    assert.ok(reset.body.includes(`POST ${BASE_URL}/accounts/resetpassword/?tag=${reset.tag}`), `the configured HOST and PORT:\n${reset.body}`);

    const email = uniqueEmail('hostsignup');
    const signed = await peerRequest('POST', PATHS.signup, { body: { email, password: strongPassword() }, headers: hostile });
    assert.equal(signed.status, 201, signed.text);
    const proof = await readMail(email, { subject: PROOF_SUBJECT });
    assert.ok(!proof.body.includes('attacker.example') && proof.body.includes(`${BASE_URL}/accounts/verifyemail/?tag=`), proof.body);

    const { admin, org } = await newOrganization('hostadmin');
    const invitee = uniqueEmail('hostinvite');
    const invited = await peerRequest('POST', paths.personnelList(org.sid, 'detail'), {
      body: { email: invitee }, headers: { ...hostile, token: admin.token },
    });
    assert.equal(invited.status, 201, invited.text);
    const invitation = await readMail(invitee);
    assert.ok(!invitation.body.includes('attacker.example') && invitation.body.includes(`${BASE_URL}/accounts/resetpassword/?tag=`), invitation.body);
  });
});
