// The browser session (issue 13): sign in from the web app into an HttpOnly cookie that
// scripts on the page cannot read. The cookie holds a session token like the one
// POST /accounts/auth/ answers (stored hashed, same throttling and idle expiry).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { actorOf, requestCredential, SESSION_COOKIE } from '../../core/auth.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { DetailError, FieldErrors } from '../../core/schemas.js';
import { AuthBody, SessionUser } from './schemas.js';
import { endSession } from './service.js';
import { endEverySession } from './password-change.js';
import { login } from './signin.js';
import { sessionUser } from './session-user.js';
import { DEVICE_COOKIE, deviceTokenOf, setDeviceCookie } from './devices.js';

const tags = ['accounts'];
const SessionAnswer = Type.Object({ user: SessionUser }, { title: 'Session' });

/** The cookie's attributes: HttpOnly, SameSite=Strict, Path=/, and Secure when PUBLIC_URL is https. */
function cookieOptions(ctx: AppContext) {
  return { httpOnly: true, sameSite: 'strict' as const, path: '/', secure: ctx.config.publicUrl?.startsWith('https:') ?? false };
}

export function registerSession(app: FastifyInstance, ctx: AppContext): void {
  const url = '/accounts/session/';

  app.post(url, {
    config: { auth: false },
    schema: {
      tags, summary: 'Sign in from the web app: a session cookie', security: [], body: AuthBody,
      description: `Sets the cookie \`${SESSION_COOKIE}\` (HttpOnly, SameSite=Strict, Path=/; Secure when PUBLIC_URL is https). `
        + 'The API accepts it beside the token headers; a POST, PUT, PATCH or DELETE signed in with it must carry '
        + `\`X-Requested-With: records-web\` (403 otherwise). Same throttling as POST /accounts/auth/, and the same device cookie \`${DEVICE_COOKIE}\`.`,
      response: { 200: SessionAnswer, 400: FieldErrors, 406: DetailError, 429: DetailError },
    },
  }, async (request, reply: FastifyReply) => {
    const { username, password } = request.body as { username: string; password: string };
    const { token, user, device } = await login(ctx, username, password, { address: request.ip, device: deviceTokenOf(request) });
    reply.setCookie(SESSION_COOKIE, token, cookieOptions(ctx));
    setDeviceCookie(reply, ctx, device);
    return { user: await sessionUser(ctx.db, user.sid) };
  });

  app.get(url, {
    // An account whose email is not proved yet reads it too: the app shows it the screen that proves it.
    config: { unproven: true },
    schema: {
      tags, summary: 'The signed-in user of the session cookie (or token)',
      description: 'Also for an account whose email is not proved yet (is_email_verified false), which the app polls until it is.',
      response: { 200: SessionAnswer, 401: DetailError },
    },
  }, async (request) => ({ user: await sessionUser(ctx.db, actorOf(request).userSid) }));

  app.delete(url, {
    config: { auth: false },
    schema: {
      tags, summary: 'Sign out: ends the session on the server and clears the cookie', security: [],
      description: 'Answers 204 whether or not the session was still valid. With the cookie it needs `X-Requested-With: records-web`.',
      response: { 204: Type.Null({ description: 'signed out' }), 403: DetailError },
    },
  }, async (request, reply) => {
    const { credential } = requestCredential(request);
    if (credential !== undefined) await endSession(ctx.db, credential);
    reply.clearCookie(SESSION_COOKIE, cookieOptions(ctx));
    return reply.code(204).send();
  });

  refuseOtherMethods(app, url, ['GET', 'POST', 'DELETE']);

  const everywhere = '/accounts/logoutall/';
  app.post(everywhere, {
    config: { unproven: true },
    schema: {
      tags, summary: 'Sign out everywhere: end every session of the account',
      description: 'Ends every session token of the caller\'s account (the web app\'s cookies and the tokens of POST /accounts/auth/, '
        + 'the caller\'s own included) in one statement; their live streams end within seconds. Clears the session cookie. '
        + 'API keys are not sessions and stay (DELETE /accounts/apikey/detail/{sid}/ deletes one). Answers how many sessions ended. '
        + 'Needs a session: an API key gets 403.',
      response: { 200: Type.Object({ detail: Type.String(), ended: Type.Integer({ description: 'sessions ended' }) }, { title: 'SessionsEnded' }), 401: DetailError, 403: DetailError },
    },
  }, async (request, reply) => {
    const ended = await endEverySession(ctx, actorOf(request));
    reply.clearCookie(SESSION_COOKIE, cookieOptions(ctx));
    return { detail: 'Every session of the account has ended.', ended };
  });
  refuseOtherMethods(app, everywhere, ['POST']);
}
