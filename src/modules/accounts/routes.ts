import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { actorOf } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { DetailError, FieldErrors } from '../../core/schemas.js';
import {
  SignupBody, SignupUser, AuthBody, AuthAnswer, ForgetBody, ResetBody, ResetQuery, VerifyQuery, Detail, ChangePasswordBody, ChangeEmailBody,
} from './schemas.js';
import { signup, logout, mayMailAccount } from './service.js';
import { login } from './signin.js';
import { forgetPassword, resetPassword } from './reset.js';
import { resendProof, verifyEmail } from './email-proof.js';
import { changePassword } from './password-change.js';
import { changeEmail } from './email-change.js';
import { currentSettings } from '../admin/settings.js';

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
        + 'whose email is proved, or that an organization added by its address (its invitation proves that one); 429 as for signup.',
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
        + 'beyond them 429 with Retry-After. An account whose email is not proved yet signs in, but may only prove it.',
      response: { 200: AuthAnswer, 400: FieldErrors, 406: DetailError, 429: DetailError },
    },
  }, async (request) => {
    const { username, password } = request.body as { username: string; password: string };
    return login(ctx, username, password, request.ip);
  });

  app.get('/accounts/checktoken/', {
    config: { unproven: true },
    schema: { tags, summary: 'Whether the token is valid', response: { 200: Detail, 401: DetailError } },
  }, async () => ({ detail: 'Valid token.' }));

  const logoutRoute = {
    config: { unproven: true },
    schema: { tags, summary: 'End the session token', response: { 200: Detail, 401: DetailError } },
  };
  const logoutHandler = async (request: FastifyRequest) => {
    const actor = actorOf(request);
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
      description: 'The tag is valid 30 minutes (7 days for an invitation) and once; it is checked before anything else. '
        + 'Setting the password proves the email (the tag was mailed to it) and ends every session of the account; API keys stay.',
      response: { 200: Detail, 400: FieldErrors },
    },
  }, async (request) => {
    await resetPassword(ctx, (request.query as { tag: string }).tag, (request.body as { password: string }).password);
    return { detail: 'Password has been reset.' };
  });

  app.post('/accounts/changepassword/', {
    schema: {
      tags, summary: "Change the caller's password (the current one required)", body: ChangePasswordBody,
      description: '`new_password` is checked as signup checks a password (8 to 128 characters). A wrong `current_password` '
        + 'answers 400 on that field and changes nothing. In one transaction the password changes and every other session '
        + 'of the account ends (their live streams too, within seconds); the session that asked stays signed in. API keys stay: '
        + 'list them with GET /accounts/apikey/list/user/{user_sid}/list/ and delete any with DELETE /accounts/apikey/detail/{sid}/.',
      response: { 200: Detail, 400: FieldErrors, 401: DetailError, 403: DetailError },
    },
  }, async (request) => {
    const body = request.body as { current_password: string; new_password: string };
    await changePassword(ctx, actorOf(request), body.current_password, body.new_password);
    return { detail: 'Password has been changed.' };
  });

  for (const url of ['/accounts/signup/', '/accounts/auth/', '/accounts/forgetpassword/', '/accounts/resetpassword/',
    '/accounts/verifyemail/', '/accounts/verifyemail/resend/', '/accounts/changepassword/', '/accounts/changeemail/']) {
    refuseOtherMethods(app, url, ['POST']);
  }
  refuseOtherMethods(app, '/accounts/checktoken/', ['GET']);
  refuseOtherMethods(app, '/accounts/logout/', ['GET', 'POST']);
}
