// A small typed HTTP client for black-box tests: every call goes over the network to
// the real server, and the answer keeps everything an assertion may need.
import { BASE_URL } from './env.ts';

const REQUEST_TIMEOUT_MS = 60_000;

/** How a credential is sent: the spec's `token` header, `Authorization: Token`, or `Authorization: Bearer`. */
export type Scheme = 'token' | 'Token' | 'Bearer';

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  /** The credential to send; null or undefined sends none. */
  token?: string | null;
  scheme?: Scheme;
  /** A value sent as JSON. */
  body?: unknown;
  /** A body sent exactly as given (with `contentType` when set). */
  rawBody?: string | Buffer;
  contentType?: string;
  query?: Query;
  headers?: Record<string, string>;
  /** The server to talk to (default BASE_URL). */
  baseUrl?: string;
  /** How long to wait for the answer (default 60 s): longer for a request queued behind many others by design. */
  timeoutMs?: number;
}

/** One answer: its status, headers, raw text and (when the body is JSON) the parsed body. */
export interface Answer {
  method: string;
  url: string;
  /** The path and query string, for messages. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** `path` with `query` appended (null and undefined values are left out). */
export function withQuery(target: string, query?: Query): string {
  if (!query) return target;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${target}${target.includes('?') ? '&' : '?'}${qs}` : target;
}

/** Sends one request; `target` is a path ("/health/") or an absolute URL (a `next` link). */
export async function http(method: string, target: string, options: RequestOptions = {}): Promise<Answer> {
  const { token, scheme = 'token', body, rawBody, contentType, query, headers = {}, baseUrl = BASE_URL, timeoutMs = REQUEST_TIMEOUT_MS } = options;
  const absolute = /^https?:\/\//i.test(target) ? target : baseUrl.replace(/\/+$/, '') + target;
  const url = new URL(withQuery(absolute, query));
  const sent: Record<string, string> = { ...headers };
  if (token !== undefined && token !== null) {
    if (scheme === 'token') sent.token = token;
    else sent.authorization = `${scheme} ${token}`;
  }
  let payload: string | Uint8Array<ArrayBuffer> | undefined;
  if (rawBody !== undefined) {
    payload = typeof rawBody === 'string' ? rawBody : new Uint8Array(rawBody);
    if (contentType) sent['content-type'] = contentType;
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    sent['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(url, { method, headers: sent, body: payload, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error & { cause?: Error };
    throw new Error(`${method} ${url.pathname}${url.search} got no answer: ${e.cause?.message ?? e.message}`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text.length ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { method, url: url.href, path: url.pathname + url.search, status: res.status, headers: res.headers, text, json };
}

/** A caller: a credential, the way it is sent, and the server it talks to. */
export class Api {
  constructor(
    readonly token: string | null = null,
    readonly scheme: Scheme = 'token',
    readonly baseUrl: string = BASE_URL,
    /** Headers sent with every request (an Idempotency-Key …). */
    readonly defaultHeaders: Record<string, string> = {},
  ) {}

  /** The same credential sent another way. */
  via(scheme: Scheme): Api {
    return new Api(this.token, scheme, this.baseUrl, this.defaultHeaders);
  }

  /** The same credential sent to another server (a second process on the same database). */
  at(baseUrl: string): Api {
    return new Api(this.token, this.scheme, baseUrl, this.defaultHeaders);
  }

  /** The same caller, sending `headers` with every request too. */
  with(headers: Record<string, string>): Api {
    return new Api(this.token, this.scheme, this.baseUrl, { ...this.defaultHeaders, ...headers });
  }

  request(method: string, target: string, options: RequestOptions = {}): Promise<Answer> {
    return http(method, target, {
      token: this.token, scheme: this.scheme, baseUrl: this.baseUrl, ...options,
      headers: { ...this.defaultHeaders, ...options.headers },
    });
  }

  get(target: string, options: RequestOptions = {}) {
    return this.request('GET', target, options);
  }

  post(target: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('POST', target, { body, ...options });
  }

  patch(target: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('PATCH', target, { body, ...options });
  }

  put(target: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('PUT', target, { body, ...options });
  }

  delete(target: string, options: RequestOptions = {}) {
    return this.request('DELETE', target, options);
  }
}

/** A caller without any credential. */
export const anonymous = new Api(null);

/** "PATCH /path/ → 500: body" for assertion messages. */
export function describeAnswer(res: Answer, max = 500): string {
  const body = res.text.length > max ? `${res.text.slice(0, max)}… (${res.text.length} chars)` : res.text;
  return `${res.method} ${res.path} → ${res.status}: ${body}`;
}
