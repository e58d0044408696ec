// Requests from a chosen client address, with headers fetch will not send (Host): the
// whole of 127.0.0.0/8 is loopback on Linux, so 127.x.y.z is another client of a server
// listening on 127.0.0.1.
import http from 'node:http';
import { randomInt } from 'node:crypto';
import { BASE_URL } from './env.ts';

export interface PeerAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** A loopback address no other test uses (127.a.b.c, a ≥ 10). */
export function newPeerAddress(): string {
  return `127.${randomInt(10, 250)}.${randomInt(1, 250)}.${randomInt(2, 250)}`;
}

/** Sends one request from `localAddress` (default 127.0.0.1) with exactly the headers given. */
export function peerRequest(
  method: string, target: string,
  options: { body?: unknown; headers?: Record<string, string>; localAddress?: string; baseUrl?: string } = {},
): Promise<PeerAnswer> {
  const url = new URL(target, options.baseUrl ?? BASE_URL);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string | number> = { ...options.headers };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers,
      localAddress: options.localAddress, agent: false, timeout: 60_000,
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => {
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${target} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** POST /accounts/auth/ from a client address, optionally through headers like X-Forwarded-For. */
export function signInFrom(localAddress: string, username: string, password: string, options: { headers?: Record<string, string>; baseUrl?: string } = {}) {
  return peerRequest('POST', '/accounts/auth/', { body: { username, password }, localAddress, ...options });
}
