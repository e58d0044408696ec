import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { actorOf, requireSession } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { DetailError, FieldErrors, PlainText } from '../../core/schemas.js';
import {
  SignupBody, SignupUser, AuthBody, AuthAnswer, ForgetBody, ResetBody, ResetQuery, VerifyQuery, Detail, ChangePasswordBody, ChangeEmailBody,
  UnlockQuery,
} from './schemas.js';
import { signup, logout, mayMailAccount } from './service.js';
import { login } from './signin.js';
import { forgetPassword, resetPassword } from './reset.js';
import { resendProof, verifyEmail } from './email-proof.js';
import { changePassword } from './password-change.js';
import { changeEmail } from './email-change.js';
import { currentSettings } from '../admin/settings.js';
import { DEVICE_COOKIE, deviceTokenOf, setDeviceCookie, unlock } from './devices.js';

const tags = ['accounts'];

/** Signup, sign-in, token check, logout and password reset (design: Identity and authentication). */
export function registerAccounts(app: FastifyInstance, ctx: AppContext): void {
  app.post('/accounts/signup/', {
    config: { auth: false },
    schema: {
      tags, summary: 'Create an account', security: [], body: SignupBody,
      description: 'Answers 201 with is_email_verified: false and mails a link that proves the email '
        + '(POST /accounts/verifyemail/?tag=…); until then the account may only prove it. The answer is the same '
        + 'whether or not the email already has an account (that address is mailed instead). Off (403) when SIGNUP_ENABLED=false; '
        + '429 when the client address asked for too many account emails this hour.',
      response: { 201: SignupUser, 400: FieldErrors, 403: DetailError, 429: DetailError },
    },
  }, async (request, reply) => {
    if (!(await currentSettings(ctx)).signup_enabled) throw errors.forbidden();
    const body = request.body as { email: string; password: string; first_name?: string; last_name?: string };
    return reply.code(201).send(await signup(ctx, body, request.ip));
  });

  app.post('/accounts/verifyemail/', {
    config: { auth: false },
    schema: {
      tags, summary: 'Prove an email address with the tag mailed to it', security: [], querystring: VerifyQuery,
      description: 'The tag is valid 24 hours and once. 400 on `tag` for a bad, used or expired one.',
      response: { 200: Detail, 400: FieldErrors },
    },
  }, async (request) => {
    await verifyEmail(ctx, (request.query as { tag: string }).tag);
    return { detail: 'Email verified.' };
  });

  app.post('/accounts/verifyemail/resend/', {
    config: { unproven: true },
    schema: {
      tags, summary: "Mail a new link that proves the caller's email",
      description: 'Answers {"detail": "Email already verified."} when it is; 429 when the address got too many account emails this hour.',
      response: { 200: Detail, 401: DetailError, 429: DetailError },
    },
  }, async (request) => {
    const actor = actorOf(request);
    const sent = await resendProof(ctx, { userSid: actor.userSid, email: actor.email, firstName: actor.firstName }, mayMailAccount);
    return { detail: sent ? 'Verification e-mail has been sent.' : 'Email already verified.' };
  });

  app.post('/accounts/changeemail/', {
    config: { unproven: true },
    schema: {
      tags, summary: "Sign in with another address: for an account whose email is not proved yet", body: ChangeEmailBody,
      description: 'For a typo at signup. Nothing changes yet: the new address is mailed a link (POST /accounts/verifyemail/?tag=…) '
        + 'that makes it the sign-in email and proves it; GET /accounts/session/ shows it as pending_email meanwhile. The answer is '
        + 'the same whether or not the address has an account (that address is mailed instead, as for signup). 403 for an account '
        + 'whose email is proved, or that an organization added by its address (its invitation proves that one), '
        + 'and for an API key (a session must ask); 429 as for signup.',
      response: { 200: Detail, 400: FieldErrors, 401: DetailError, 403: DetailError, 429: DetailError },
    },
  }, async (request) => {
    const { email } = request.body as { email: string };
    await changeEmail(ctx, actorOf(request), email, request.ip);
    return { detail: `A link that proves ${email} was mailed to it: opening it makes ${email} your sign-in address.` };
  });

  app.post('/accounts/auth/', {
    config: { auth: false },
    schema: {
      tags, summary: 'Sign in: a token for the email (username) and password', security: [], body: AuthBody,
      description: 'Failures are limited per client address and account, per client address, and (a slow-down) per account; '
        + 'beyond them 429 with Retry-After. A client that signed in to the account before and kept the device cookie '
        + `\`${DEVICE_COOKIE}\` (set by every successful sign-in, Path=/accounts/) has a limit of its own instead, which strangers' `
        + 'failures do not touch. A script that keeps no cookies shares the slow-down with everyone: use an API key. '
        + 'An account whose email is not proved yet signs in, but may only prove it.',
      response: { 200: AuthAnswer, 400: FieldErrors, 406: DetailError, 429: DetailError },
    },
  }, async (request, reply) => {
    const { username, password } = request.body as { username: string; password: string };
    const { token, user, device } = await login(ctx, username, password, { address: request.ip, device: deviceTokenOf(request) });
    setDeviceCookie(reply, ctx, device);
    return { token, user };
  });

  app.get('/accounts/checktoken/', {
    config: { unproven: true },
    schema: { tags, summary: 'Whether the token is valid', response: { 200: Detail, 401: DetailError } },
  }, async () => ({ detail: 'Valid token.' }));

  const logoutRoute = {
    config: { unproven: true, changesState: true },
    schema: {
      tags, summary: 'End the session token',
      description: 'With a token header (the design\'s form for scripts), GET or POST. Signed in with the session cookie, it '
        + 'needs `X-Requested-With: records-web` whatever the method (403 otherwise), so a link or an image cannot sign anyone out. '
        + 'An API key cannot end sessions (403); delete it with DELETE /accounts/apikey/detail/{sid}/ from a session.',
      response: { 200: Detail, 401: DetailError, 403: DetailError },
    },
  };
  const logoutHandler = async (request: FastifyRequest) => {
    const actor = actorOf(request);
    requireSession(actor, 'end sessions');
    await logout(ctx.db, actor.credentialSid, actor.credentialKind);
    return { detail: 'Successfully logged out.' };
  };
  app.get('/accounts/logout/', logoutRoute, logoutHandler);
  app.post('/accounts/logout/', logoutRoute, logoutHandler);

  app.post('/accounts/forgetpassword/', {
    config: { auth: false },
    schema: {
      tags, summary: 'Email a password reset link', security: [], body: ForgetBody,
      description: 'Answers the same, at once, whether or not the email has an account; the mail lists the API keys, '
        + 'which stay valid. 429 when the client address asked for too many account emails this hour.',
      response: { 200: Detail, 400: FieldErrors, 429: DetailError },
    },
  }, async (request) => {
    await forgetPassword(ctx, (request.body as { email: string }).email, request.ip, request.log);
    return { detail: 'Password reset e-mail has been sent.' };
  });

  app.post('/accounts/resetpassword/', {
    config: { auth: false },
    schema: {
      tags, summary: 'Set a new password with the emailed tag', security: [], body: ResetBody, querystring: ResetQuery,
      description: 'The tag is valid 30 minutes (7 days for an invitation) and once; it is checked before anything else: '
        + 'a wrong, used or expired tag is 406 "Error: Wrong Tag! - Tag is not valid", none is 406 "Error: Missing Tag in GET! - '
        + 'Tag is missing in the url" (plain text, as Labii answers). '
        + 'A password easy to guess (zxcvbn score below 3: a common password, a keyboard walk, one\'s own name or email …) '
        + 'is refused with 400 on `password` saying why. Setting the password proves the email (the tag was mailed to it), '
        + 'ends every session of the account (API keys stay) and ends the account\'s sign-in slow-down; the answer sets the '
        + `device cookie \`${DEVICE_COOKIE}\` (this client has signed in before, see POST /accounts/auth/).`,
      response: { 200: Detail, 400: FieldErrors, 406: PlainText },
    },
  }, async (request, reply) => {
    const device = await resetPassword(ctx, (request.query as { tag?: string }).tag, (request.body as { password: string }).password, deviceTokenOf(request));
    setDeviceCookie(reply, ctx, device);
    return { detail: 'Password has been reset.' };
  });

  app.post('/accounts/unlock/', {
    config: { auth: false, operationId: 'unlockSignIn' },
    schema: {
      tags, summary: 'Let this client sign in at once despite a slow-down, with the mailed tag', security: [], querystring: UnlockQuery,
      description: 'When many failed sign-ins from many addresses slow an account down, its owner is mailed this link (valid '
        + `24 hours, once). Sending it sets the device cookie \`${DEVICE_COOKIE}\`: this client then signs in to the account as one `
        + 'that signed in before, with a limit of its own that strangers\' failures do not touch. 400 on `tag` for a bad, used or expired one.',
      response: { 200: Detail, 400: FieldErrors },
    },
  }, async (request, reply) => {
    const device = await unlock(ctx, (request.query as { tag: string }).tag, deviceTokenOf(request));
    setDeviceCookie(reply, ctx, device);
    return { detail: 'This browser may sign in now.' };
  });

  app.post('/accounts/changepassword/', {
    schema: {
      tags, summary: "Change the caller's password (the current one required)", body: ChangePasswordBody,
      description: '`new_password` is checked as signup checks a password (8 to 128 characters, not easy to guess). A wrong `current_password` '
        + 'answers 400 on that field and changes nothing; wrong ones are limited per account like sign-in failures '
        + '(LOGIN_FAILURES_PER_CLIENT per 15 minutes, then 429 with Retry-After). Needs a session: an API key gets 403. In one transaction the password changes and every other session '
        + 'of the account ends (their live streams too, within seconds); the session that asked stays signed in. API keys stay: '
        + 'list them with GET /accounts/apikey/list/user/{user_sid}/list/ and delete any with DELETE /accounts/apikey/detail/{sid}/.',
      response: { 200: Detail, 400: FieldErrors, 401: DetailError, 403: DetailError, 429: DetailError },
    },
  }, async (request) => {
    const body = request.body as { current_password: string; new_password: string };
    await changePassword(ctx, actorOf(request), body.current_password, body.new_password);
    return { detail: 'Password has been changed.' };
  });

  for (const url of ['/accounts/signup/', '/accounts/auth/', '/accounts/forgetpassword/', '/accounts/resetpassword/',
    '/accounts/verifyemail/', '/accounts/verifyemail/resend/', '/accounts/changepassword/', '/accounts/changeemail/',
    '/accounts/unlock/']) {
    refuseOtherMethods(app, url, ['POST']);
  }
  refuseOtherMethods(app, '/accounts/checktoken/', ['GET']);
  refuseOtherMethods(app, '/accounts/logout/', ['GET', 'POST']);
}
