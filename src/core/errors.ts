// Named errors: thrown anywhere, turned into the spec's bodies once, by core/error-handler.ts.

export type ErrorBody = { detail: string } | Record<string, string[]> | string;

/** An error the API answers with: a status, a body and (rarely) headers. A string body is sent as plain text. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'string' ? body : JSON.stringify(body));
  }
}

export const MESSAGES = {
  notAuthenticated: 'Authentication credentials were not provided.',
  invalidToken: 'Invalid token.',
  forbidden: 'You do not have permission to perform this action.',
  notFound: 'Not found.',
  invalidPage: 'Invalid page.',
  wrongLevel: 'Wrong level - the provided level is not acceptable',
  wrongSerializer: 'Wrong serializer - the provided serializer is not acceptable',
  wrongId: 'Wrong id - the provided sid is not correct',
  badCredentials: 'Unable to log in with provided credentials.',
  serverError: 'A server error occurred.',
  emailNotVerified: 'Prove your email address first: follow the link mailed to it (POST /accounts/verifyemail/resend/ mails a new one).',
  unavailable: 'The service is temporarily unavailable; try again shortly.',
} as const;

export const errors = {
  /** 400 with field errors: {"field": ["message"]}. */
  fields: (fields: Record<string, string | string[]>) =>
    new ApiError(400, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]))),
  field: (field: string, message: string) => errors.fields({ [field]: message }),
  badRequest: (detail: string) => new ApiError(400, { detail }),
  notAuthenticated: () => new ApiError(401, { detail: MESSAGES.notAuthenticated }),
  invalidToken: () => new ApiError(401, { detail: MESSAGES.invalidToken }),
  forbidden: () => new ApiError(403, { detail: MESSAGES.forbidden }),
  notFound: () => new ApiError(404, { detail: MESSAGES.notFound }),
  invalidPage: () => new ApiError(404, { detail: MESSAGES.invalidPage }),
  methodNotAllowed: (method: string, allow: string[]) =>
    new ApiError(405, { detail: `Method "${method}" not allowed.` }, { allow: allow.join(', ') }),
  /** 406 with a plain-text message, as the spec's cell errors. */
  notAcceptable: (message: string) => new ApiError(406, message),
  wrongLevel: () => errors.notAcceptable(MESSAGES.wrongLevel),
  wrongSerializer: () => errors.notAcceptable(MESSAGES.wrongSerializer),
  wrongId: () => errors.notAcceptable(MESSAGES.wrongId),
  badCredentials: () => new ApiError(406, { detail: MESSAGES.badCredentials }),
  /**
   * 403 for an organization Admin writing rows or cells of a project where they hold no
   * project role: why, and the request that fixes it.
   */
  needsProjectRole: (projectSid: string, personnelSid: string) => new ApiError(403, {
    detail: 'You are not a member of this project. An organization Admin reads every project but writes its rows and cells '
      + `only with a project role: add yourself to the project first (POST /projects/member/list/project/${projectSid}/detail/ `
      + `with {"personnel": "${personnelSid}", "permission": "edit"}).`,
  }),
  /** The 403 of a refused row or cell write: an Admin without a project role is told why and what to do. */
  writeRefused: (membership: { role: string; personnelSid: string }, projectRole: string | null | undefined, projectSid: string) =>
    (membership.role === 'admin' && !projectRole ? errors.needsProjectRole(projectSid, membership.personnelSid) : errors.forbidden()),
  conflict: (detail: string) => new ApiError(409, { detail }),
  tooManyRequests: (retryAfterSeconds: number) =>
    new ApiError(429, { detail: `Too many failed attempts. Try again in ${retryAfterSeconds} seconds.` }, { 'retry-after': String(retryAfterSeconds) }),
  /** 429 for a quota (mail, …) rather than failed attempts. */
  quotaExceeded: (detail: string, retryAfterSeconds: number) =>
    new ApiError(429, { detail: `${detail} Try again in ${retryAfterSeconds} seconds.` }, { 'retry-after': String(retryAfterSeconds) }),
  /** 403 with a reason other than the role (a limit reached). */
  refused: (detail: string) => new ApiError(403, { detail }),
  /** 403: an API key tried what only a signed-in session may do (core/auth.ts requireSession). */
  sessionRequired: (what: string) => new ApiError(403, {
    detail: `An API key cannot ${what}: only a signed-in session can (sign in with POST /accounts/auth/ or the web app). `
      + 'An API key may not create API keys, delete other keys, change the password or the sign-in address, end sessions, or administer the instance.',
  }),
  /** 403: the account has not proved its email yet. */
  emailNotVerified: () => new ApiError(403, { detail: MESSAGES.emailNotVerified }),
  unavailable: () => new ApiError(503, { detail: MESSAGES.unavailable }, { 'retry-after': '5' }),
};
