// The account mails: proving an address (or an unproven account's new sign-in address), an
// existing account, a password reset, an invitation, many failed sign-ins. Links are built
// from the configured base URL (PUBLIC_URL, or HOST and PORT at start-up), never from a request.
import type { OutgoingMail } from '../../mail/outbox.js';

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

const hello = (name: string) => `Hello${name ? ` ${name}` : ''},\n\n`;

/** The link that proves `email` (valid 24 hours). It proves the address, so it may go to an unproven one. */
export function proofMail(baseUrl: string, email: string, name: string, tag: string, contact = false): OutgoingMail {
  return {
    to: email,
    recipient: 'proof',
    subject: 'Prove your email address for the Records Service',
    body: hello(name)
      + (contact
        ? `Someone (we hope you) made ${email} their contact address on the Records Service.\n`
        : `Someone (we hope you) signed up to the Records Service with ${email}.\n`)
      + `Prove that this address is yours within 24 hours by sending:\n\n  POST ${verifyLink(baseUrl, tag)}\n\n`
      + 'Until then no other mail goes to it. If you did not ask for this, ignore this message.\n',
  };
}

/**
 * The link that makes `email` the sign-in address of an account that has not proved its own
 * yet, and proves it (valid 24 hours; POST /accounts/changeemail/). Sent to the new address,
 * which is unproven, like any proof.
 */
export function changeAddressMail(baseUrl: string, email: string, name: string, tag: string): OutgoingMail {
  return {
    to: email,
    recipient: 'proof',
    subject: 'Prove your email address for the Records Service',
    body: hello(name)
      + `Someone (we hope you) asked to sign in to their Records Service account with ${email} instead of the address they signed up with.\n`
      + `Prove that this address is yours within 24 hours by sending:\n\n  POST ${verifyLink(baseUrl, tag)}\n\n`
      + `It then becomes the account's sign-in address; until then nothing changes and no other mail goes to it. `
      + 'If you did not ask for this, ignore this message.\n',
  };
}

/** Signup with an email that already has an account: say so, with a reset link, to that address only. */
export function existingAccountMail(baseUrl: string, email: string, tag: string, minutes: number): OutgoingMail {
  return {
    to: email,
    recipient: 'proof',
    subject: 'You already have a Records Service account',
    body: `Hello,\n\nSomeone (we hope you) tried to sign up to the Records Service with ${email}, which already has an account.\n`
      + `Sign in with it, or, if you forgot the password, set a new one within ${minutes} minutes by sending it to:\n\n`
      + `  POST ${resetLink(baseUrl, tag)}\n  {"password": "<new password>"}\n\n`
      + 'Setting a password also proves this address. If you did not ask for this, ignore this message.\n',
  };
}

export interface KeyListed { sid: string; name: string; date_created: string; last_used: string }

/** The reset link (valid `minutes`), and the API keys that stay valid after a reset. */
export function resetMail(baseUrl: string, user: { email: string; firstName: string }, tag: string, minutes: number, keys: KeyListed[]): OutgoingMail {
  const keyLines = keys.length
    ? [
      'Your API keys stay valid after a reset. They are:',
      ...keys.map((k) => `  - ${k.name || '(no name)'} (sid ${k.sid}), created ${k.date_created}, last used ${k.last_used}`),
      `Delete any you do not recognize: DELETE ${baseUrl}/accounts/apikey/detail/<sid>/ (signed in), or list them at`,
      `GET ${baseUrl}/accounts/apikey/list/user/<your user sid>/list/.`,
    ]
    : ['Your account has no API keys.'];
  return {
    to: user.email,
    recipient: 'proof',
    subject: 'Reset your Records Service password',
    body: hello(user.firstName)
      + 'Someone (we hope you) asked to reset the password of your Records Service account.\n'
      + `Set a new password within ${minutes} minutes by sending it to:\n\n  POST ${resetLink(baseUrl, tag)}\n  {"password": "<new password>"}\n\n`
      + `Reset tag: ${tag}\n\nA new password ends every session of the account (signed-in apps must sign in again).\n`
      + `${keyLines.join('\n')}\n\nIf you did not ask for this, ignore this message; your password stays as it is.\n`,
  };
}

/** An invitation to an organization: the tag sets the password and proves the address. */
export function invitationMail(baseUrl: string, email: string, organization: string, inviter: string | null, tag: string, days: number): OutgoingMail {
  return {
    to: email,
    recipient: 'proof',
    subject: `You are invited to ${organization} on the Records Service`,
    body: `Hello,\n\n${inviter ? `${inviter} added you to ${organization}.` : `You are the administrator of ${organization} on the Records Service.`}\n`
      + `Choose your password within ${days} days by sending it to:\n\n  POST ${resetLink(baseUrl, tag)}\n  {"password": "<your password>"}\n\n`
      + `Then sign in with POST ${baseUrl}/accounts/auth/ {"username": "${email}", "password": "…"}.\n`
      + 'Choosing the password proves that this address is yours; until then the invitation gives no access.\n',
  };
}

/** Many failed sign-ins from many addresses: the owner hears of it, with an unlock link and a reset link. */
export function failuresMail(
  baseUrl: string, user: { sid: string; email: string; firstName: string }, failures: number,
  tags: { reset: string; unlock: string }, valid: { reset: number; unlock: number },
): OutgoingMail {
  return {
    to: user.email,
    recipient: { userSid: user.sid },
    subject: 'Many failed sign-ins to your Records Service account',
    body: hello(user.firstName)
      + `There were ${failures} failed attempts to sign in to your account within 15 minutes, from several addresses.\n`
      + 'Sign-ins to it are slowed down for a while, except from browsers and apps you signed in with before; your password still works.\n'
      + `To sign in at once from somewhere else, open this link there within ${valid.unlock} hours (once):\n\n`
      + `  POST ${unlockLink(baseUrl, tags.unlock)}\n\n`
      + `If the password may be known to someone else, set a new one within ${valid.reset} minutes by sending it to:\n\n`
      + `  POST ${resetLink(baseUrl, tags.reset)}\n  {"password": "<new password>"}\n`
      + 'A new password also ends the slow-down.\n',
  };
}
