// The account mails: proving an address (or an unproven account's new sign-in address), an
// existing account, a password reset, an invitation, many failed sign-ins. Links are built
// from the configured base URL (PUBLIC_URL, or HOST and PORT at start-up), never from a request.
// Each has a text and an HTML alternative (mail/compose.ts): a button to the web app's page
// at the link (which does the POST itself), and the API form in a footnote for scripts.
// Names others chose are quoted only through plainName.
import type { OutgoingMail } from '../../mail/outbox.js';
import { plainName, renderMail, type MailContent } from '../../mail/compose.js';

/** Where a person proves an address with a tag. */
export function verifyLink(baseUrl: string, tag: string): string {
  return `${baseUrl}/accounts/verifyemail/?tag=${encodeURIComponent(tag)}`;
}

/** Where the owner of a slowed-down account trusts the client they are on (devices.ts). */
export function unlockLink(baseUrl: string, tag: string): string {
  return `${baseUrl}/accounts/unlock/?tag=${encodeURIComponent(tag)}`;
}

/** Where a person sets their password with a tag. */
export function resetLink(baseUrl: string, tag: string): string {
  return `${baseUrl}/accounts/resetpassword/?tag=${encodeURIComponent(tag)}`;
}

/** Where an existing account accepts an organization it was added to (personnel/consent.ts). */
export function acceptLink(baseUrl: string, personnelSid: string): string {
  return `${baseUrl}/organizations/personnel/detail/${encodeURIComponent(personnelSid)}/accept/`;
}

/** Where a person leaves an organization. */
export function leaveLink(baseUrl: string, personnelSid: string): string {
  return `${baseUrl}/organizations/personnel/detail/${encodeURIComponent(personnelSid)}/leave/`;
}

function mail(to: string, recipient: OutgoingMail['recipient'], subject: string, content: MailContent): OutgoingMail {
  const { text, html } = renderMail(content);
  return { to, recipient, subject, body: text, html };
}

const IGNORE = 'If you did not ask for this, ignore this message.';

/** The link that proves `email` (valid 24 hours). It proves the address, so it may go to an unproven one. */
export function proofMail(baseUrl: string, email: string, name: string, tag: string, contact = false): OutgoingMail {
  return mail(email, 'proof', 'Prove your email address for the Records Service', {
    hello: plainName(name),
    intro: [
      contact
        ? `Someone (we hope you) made ${email} their contact address on the Records Service.`
        : `Someone (we hope you) signed up to the Records Service with ${email}.`,
      'Prove that this address is yours within 24 hours: the button opens the Records Service, which proves it at once.',
    ],
    action: { label: 'Prove my email address', url: verifyLink(baseUrl, tag) },
    outro: [`Until then no other mail goes to it. ${IGNORE}`],
    api: [`POST ${verifyLink(baseUrl, tag)}`],
  });
}

/**
 * The link that makes `email` the sign-in address of an account that has not proved its own
 * yet, and proves it (valid 24 hours; POST /accounts/changeemail/). Sent to the new address,
 * which is unproven, like any proof.
 */
export function changeAddressMail(baseUrl: string, email: string, name: string, tag: string): OutgoingMail {
  return mail(email, 'proof', 'Prove your email address for the Records Service', {
    hello: plainName(name),
    intro: [
      `Someone (we hope you) asked to sign in to their Records Service account with ${email} instead of the address they signed up with.`,
      'Prove that this address is yours within 24 hours. It then becomes the account\'s sign-in address.',
    ],
    action: { label: 'Prove my email address', url: verifyLink(baseUrl, tag) },
    outro: [`Until then nothing changes and no other mail goes to it. ${IGNORE}`],
    api: [`POST ${verifyLink(baseUrl, tag)}`],
  });
}

/** Signup with an email that already has an account: say so, with a reset link, to that address only. */
export function existingAccountMail(baseUrl: string, email: string, tag: string, minutes: number): OutgoingMail {
  return mail(email, 'proof', 'You already have a Records Service account', {
    hello: '',
    intro: [
      `Someone (we hope you) tried to sign up to the Records Service with ${email}, which already has an account.`,
      `Sign in with it, or, if you forgot the password, choose a new one within ${minutes} minutes. Setting a password also proves this address.`,
    ],
    action: { label: 'Choose a new password', url: resetLink(baseUrl, tag) },
    outro: [IGNORE],
    api: [`POST ${resetLink(baseUrl, tag)}`, '{"password": "<new password>"}'],
  });
}

export interface KeyListed { sid: string; name: string; date_created: string; last_used: string }

/** The reset link (valid `minutes`), and the API keys that stay valid after a reset. */
export function resetMail(baseUrl: string, user: { email: string; firstName: string }, tag: string, minutes: number, keys: KeyListed[]): OutgoingMail {
  const keyLines = keys.length
    ? ['Your API keys stay valid after a reset. They are:\n'
      + keys.map((k) => `  - ${plainName(k.name) || '(no name)'} (sid ${k.sid}), created ${k.date_created}, last used ${k.last_used}`).join('\n')
      + '\nDelete any you do not recognize on your Account page.']
    : ['Your account has no API keys.'];
  return mail(user.email, 'proof', 'Reset your Records Service password', {
    hello: plainName(user.firstName),
    intro: [
      'Someone (we hope you) asked to reset the password of your Records Service account.',
      `Set a new password within ${minutes} minutes. A new password ends every session of the account (signed-in apps must sign in again).`,
    ],
    action: { label: 'Choose a new password', url: resetLink(baseUrl, tag) },
    outro: [...keyLines, 'If you did not ask for this, ignore this message; your password stays as it is.'],
    api: [`POST ${resetLink(baseUrl, tag)}`, '{"password": "<new password>"}', `Reset tag: ${tag}`,
      ...(keys.length ? [`DELETE ${baseUrl}/accounts/apikey/detail/<sid>/ (signed in) deletes an API key.`] : [])],
  });
}

/**
 * The one invitation to an organization. `tag`: the account has no password (or an unproven
 * address) yet, and the tag sets it, proves the address and accepts; otherwise the account
 * accepts at the accept link, signed in. Until it accepts, the organization mails it nothing else.
 */
export function invitationMail(
  baseUrl: string, email: string, organization: string, inviter: string | null,
  invite: { tag: string; days: number } | { personnelSid: string; userSid: string },
): OutgoingMail {
  const org = plainName(organization);
  const who = inviter === null ? null : plainName(inviter);
  const intro = who
    ? `${who} invited you to ${org} on the Records Service.`
    : `You are the administrator of ${org} on the Records Service.`;
  const consent = `Until you accept, ${org} sends you no other mail. If you do not know ${who ?? 'them'}, ignore this message; `
    + 'you may also leave the organization at any time.';
  if ('tag' in invite) {
    return mail(email, 'proof', `You are invited to ${org} on the Records Service`, {
      hello: '',
      intro: [intro, `Accept within ${invite.days} days by choosing your password. Choosing it proves that this address is yours; until then the invitation gives no access.`],
      action: { label: 'Accept and choose a password', url: resetLink(baseUrl, invite.tag) },
      outro: [consent],
      api: [`POST ${resetLink(baseUrl, invite.tag)}`, '{"password": "<your password>"}',
        `then POST ${baseUrl}/accounts/auth/ {"username": "${email}", "password": "…"}`],
    });
  }
  return mail(email, { userSid: invite.userSid }, `You are invited to ${org} on the Records Service`, {
    hello: '',
    intro: [intro, 'You are a member already; accept to hear from it by mail.'],
    action: { label: 'Accept the invitation', url: acceptLink(baseUrl, invite.personnelSid) },
    outro: [consent],
    api: [`POST ${acceptLink(baseUrl, invite.personnelSid)} (signed in) accepts;`, `POST ${leaveLink(baseUrl, invite.personnelSid)} leaves.`],
  });
}

/** Many failed sign-ins from many addresses: the owner hears of it, with an unlock link and a reset link. */
export function failuresMail(
  baseUrl: string, user: { sid: string; email: string; firstName: string }, failures: number,
  tags: { reset: string; unlock: string }, valid: { reset: number; unlock: number },
): OutgoingMail {
  return mail(user.email, { userSid: user.sid }, 'Many failed sign-ins to your Records Service account', {
    hello: plainName(user.firstName),
    intro: [
      `There were ${failures} failed attempts to sign in to your account within 15 minutes, from several addresses.`,
      'Sign-ins to it are slowed down for a while, except from browsers and apps you signed in with before; your password still works.',
      `To sign in at once from somewhere else, open this link there within ${valid.unlock} hours (once).`,
    ],
    action: { label: 'Sign in from this browser', url: unlockLink(baseUrl, tags.unlock) },
    outro: [`If the password may be known to someone else, choose a new one within ${valid.reset} minutes (a new password also ends the slow-down):\n${resetLink(baseUrl, tags.reset)}`],
    api: [`POST ${unlockLink(baseUrl, tags.unlock)}`, `POST ${resetLink(baseUrl, tags.reset)} {"password": "<new password>"}`],
  });
}
