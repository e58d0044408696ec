// What a log line may say about an error (issue 21, point 7). A statement that fails
// reaches us as Drizzle's DrizzleQueryError, whose message (and so its stack) ends with
// "params: …": every value of the statement, e.g. a signup's email and names and the
// argon2 hash of its password. The logger's `err` serializer (app.ts) and every log line
// that quotes an error's message go through here: the statement's text stays (it says
// what failed), its parameters never reach a log.
import { stdSerializers } from 'pino';

const PARAMETERS = /\nparams: [\s\S]*$/;
const REDACTED = '\nparams: [redacted]';
const MAX_DEPTH = 8;

type ErrorLike = Error & { params?: unknown; cause?: unknown };
const isErrorLike = (value: unknown): value is ErrorLike =>
  typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';

/** The error's message without a failed statement's parameters. */
export function safeMessage(error: unknown): string {
  if (!isErrorLike(error)) return String(error);
  return 'params' in error ? error.message.replace(PARAMETERS, REDACTED) : error.message;
}

/** A copy of the error chain without statement parameters (message, stack and the `params` field). */
function withoutParameters(error: unknown, depth = 0): unknown {
  if (!isErrorLike(error) || depth > MAX_DEPTH) return error;
  const cause = withoutParameters(error.cause, depth + 1);
  const hasParameters = 'params' in error;
  if (!hasParameters && cause === error.cause) return error;
  const copy = Object.create(Object.getPrototypeOf(error) as object) as ErrorLike;
  for (const key of Object.keys(error)) if (key !== 'cause') (copy as unknown as Record<string, unknown>)[key] = (error as unknown as Record<string, unknown>)[key];
  const message = safeMessage(error);
  Object.defineProperty(copy, 'message', { value: message, writable: true, configurable: true });
  Object.defineProperty(copy, 'stack', { value: error.stack?.replace(error.message, message), writable: true, configurable: true });
  if (cause !== undefined) Object.defineProperty(copy, 'cause', { value: cause, writable: true, configurable: true });
  if (hasParameters) copy.params = '[redacted]';
  return copy;
}

/** The logger's `err` serializer: pino's own, on the error without statement parameters. */
export function errSerializer(error: Error): { [key: string]: unknown; type: string; message: string; stack: string } {
  return stdSerializers.err(withoutParameters(error) as Error);
}
