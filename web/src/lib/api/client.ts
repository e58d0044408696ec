// The app's one way to the API: the typed client generated from openapi.json (schema.d.ts,
// `npm run api:types`). Same origin, the browser session cookie, and the header the API
// asks of every state-changing request a cookie authenticates.
import createClient from 'openapi-fetch';
import type { paths } from './schema';

/** How often a read turned away while the server is busy is asked again, and the longest wait taken. */
const BUSY_RETRIES = 3;
const BUSY_WAIT_MAX_SECONDS = 10;

/**
 * fetch, but a read the server turns away while busy (503 with Retry-After: its budget of
 * large answers in flight, docs/decisions.md) is asked again after the wait it names, a few
 * times, so a screen shows its answer a moment later rather than an error. Writes are never
 * repeated here.
 */
async function patientFetch(request: Request): Promise<Response> {
  const read = request.method === 'GET' || request.method === 'HEAD';
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(read ? request.clone() : request);
    const wait = Number(response.headers.get('Retry-After'));
    if (!read || response.status !== 503 || attempt >= BUSY_RETRIES || !(wait >= 0 && wait <= BUSY_WAIT_MAX_SECONDS)) return response;
    await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 1) * 1000));
  }
}

/** The typed API client; features call it through their hooks, never fetch. */
export const api = createClient<paths>({
  baseUrl: '',
  credentials: 'same-origin',
  headers: { 'X-Requested-With': 'records-web' },
  fetch: patientFetch,
});

/** A refusal of the API: its status and the message a person should read. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

/** The API's error body as an ApiError: `{detail}`, field errors, or the spec's plain-text 406. */
export function toApiError(status: number, body: unknown): ApiError {
  if (typeof body === 'string' && body.trim()) return new ApiError(status, body.trim());
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    if (typeof record.detail === 'string') return new ApiError(status, record.detail);
    const fields: Record<string, string[]> = {};
    for (const [key, value] of Object.entries(record)) {
      if (Array.isArray(value)) fields[key] = value.map(String);
      else if (typeof value === 'string') fields[key] = [value];
    }
    const text = Object.entries(fields).map(([key, messages]) => `${key}: ${messages.join(' ')}`).join('; ');
    if (text) return new ApiError(status, text, fields);
  }
  return new ApiError(status, `The request failed (${status}).`);
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; an ApiError otherwise. */
export async function unwrap<T>(pending: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw toApiError(response.status, error);
  return data as T;
}

/** The message of any error, for showing it. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
