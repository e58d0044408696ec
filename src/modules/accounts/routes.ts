import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { actorOf } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { DetailError, FieldErrors } from '../../core/schemas.js';
import { baseUrlOf } from '../../core/urls.js';
import {
  SignupBody, SignupUser, AuthBody, AuthAnswer, ForgetBody, ResetBody, ResetQuery, Detail,
} from './schemas.js';
import { createUser, login, logout, forgetPassword, resetPassword } from './service.js';

const tags = ['accounts'];

/** Signup, sign-in, token check, logout and password reset (design: Identity and authentication). */
export function registerAccounts(app: FastifyInstance, ctx: AppContext): void {
  app.post('/accounts/signup/', {
    config: { auth: false },
    schema: {
      tags, summary: 'Create an account', security: [], body: SignupBody,
      description: 'Off (403) when SIGNUP_ENABLED=false.',
      response: { 201: SignupUser, 400: FieldErrors, 403: DetailError },
    },
  }, async (request, reply) => {
    if (!ctx.config.signupEnabled) throw errors.forbidden();
    const body = request.body as { email: string; password: string; first_name?: string; last_name?: string };
    const user = await ctx.db.transaction((tx) => createUser(tx, body));
    return reply.code(201).send(user);
  });

  app.post('/accounts/auth/', {
    config: { auth: false },
    schema: {
      tags, summary: 'Sign in: a token for the email (username) and password', security: [], body: AuthBody,
      response: { 200: AuthAnswer, 400: FieldErrors, 406: DetailError, 429: DetailError },
    },
  }, async (request) => {
    const { username, password } = request.body as { username: string; password: string };
    return login(ctx, username, password, request.ip);
  });

  app.get('/accounts/checktoken/', {
    schema: { tags, summary: 'Whether the token is valid', response: { 200: Detail, 401: DetailError } },
  }, async () => ({ detail: 'Valid token.' }));

  const logoutRoute = {
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
      description: 'Answers the same whether or not the email has an account.',
      response: { 200: Detail, 400: FieldErrors },
    },
  }, async (request) => {
    await forgetPassword(ctx, (request.body as { email: string }).email, baseUrlOf(request, ctx.config.publicUrl));
    return { detail: 'Password reset e-mail has been sent.' };
  });

  app.post('/accounts/resetpassword/', {
    config: { auth: false },
    schema: {
      tags, summary: 'Set a new password with the emailed tag', security: [], body: ResetBody, querystring: ResetQuery,
      description: 'The tag is valid 30 minutes (7 days for an invitation) and once. Every session of the account ends.',
      response: { 200: Detail, 400: FieldErrors },
    },
  }, async (request) => {
    await resetPassword(ctx, (request.query as { tag: string }).tag, (request.body as { password: string }).password);
    return { detail: 'Password has been reset.' };
  });

  for (const url of ['/accounts/signup/', '/accounts/auth/', '/accounts/forgetpassword/', '/accounts/resetpassword/']) {
    refuseOtherMethods(app, url, ['POST']);
  }
  refuseOtherMethods(app, '/accounts/checktoken/', ['GET']);
  refuseOtherMethods(app, '/accounts/logout/', ['GET', 'POST']);
}
