// A small JSON client for seeding and probing the service (not for load: autocannon does that).

export interface Reply<T = any> {
  status: number;
  body: T;
  text: string;
}

/** Sends one request and returns its status and parsed body (text when it is not JSON). */
export async function call<T = any>(
  base: string, method: string, path: string, options: { token?: string; body?: unknown } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = {};
  if (options.token) headers.token = options.token;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(base + path, {
    method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: any = text;
  try { body = JSON.parse(text); } catch { /* plain text (the spec's 406s) */ }
  return { status: response.status, body, text };
}

/** Like call, but throws unless the status is the expected one. */
export async function expect<T = any>(
  base: string, status: number, method: string, path: string, options: { token?: string; body?: unknown } = {},
): Promise<T> {
  const reply = await call<T>(base, method, path, options);
  if (reply.status !== status) {
    throw new Error(`${method} ${path}: expected ${status}, got ${reply.status}: ${reply.text.slice(0, 500)}`);
  }
  return reply.body;
}
