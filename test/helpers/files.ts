// What the files tests share (issue 25): multipart bodies built byte by byte, uploads
// (multipart and tus), a request cut off mid-body, a throwaway ClamAV daemon with a
// signature database of its own (one line: the EICAR test file), and the server a suite
// runs on — its own, with small limits, the scanner and a GC every second, on a fresh
// database (PostgreSQL) or folder (PGlite), with the store given (folder or S3).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Api, Answer } from './http.ts';
import { DB_KIND } from './env.ts';
import { scratchDatabase } from './scratch-db.ts';
import { killGroup, startServer, type RunningServer } from './server.ts';

export const filePaths = {
  list: (org: string, serializer = 'detail') => `/files/file/list/organization/${org}/${serializer}/`,
  detail: (sid: string) => `/files/file/detail/${sid}/`,
  download: (sid: string) => `/files/file/download/${sid}/`,
  resumable: (org: string) => `/files/upload/list/organization/${org}/`,
};

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Random bytes (incompressible, and unique to the test that asks). */
export const randomFile = (size: number) => randomBytes(size);

/** The EICAR test file: every virus scanner's harmless "infected" sample. */
export const EICAR = Buffer.from('X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*', 'latin1');

export interface Part {
  name: string;
  /** A file part when set (as a quoted filename); `filenameStar` adds RFC 5987's filename*. */
  filename?: string;
  filenameStar?: string;
  contentType?: string;
  content: Buffer | string;
}

/** A multipart/form-data body, byte for byte. */
export function multipart(parts: Part[], boundary = `----records${randomBytes(8).toString('hex')}`): { body: Buffer; contentType: string; boundary: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let disposition = `form-data; name="${part.name}"`;
    if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
    if (part.filenameStar !== undefined) disposition += `; filename*=${part.filenameStar}`;
    const headers = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.contentType ? `Content-Type: ${part.contentType}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(headers, 'utf8'), Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}`, boundary };
}

/** POSTs one file as multipart/form-data (the part "file", `name` as its filename). */
export function upload(api: Api, org: string, name: string, content: Buffer | string, options: { contentType?: string; partType?: string } = {}): Promise<Answer> {
  const { body, contentType } = multipart([{ name: 'file', filename: name, content, contentType: options.partType ?? 'application/octet-stream' }]);
  return api.request('POST', filePaths.list(org), { rawBody: body, contentType: options.contentType ?? contentType });
}

/** A tus request (Tus-Resumable: 1.0.0 and the caller's credential). */
export function tus(api: Api, method: string, target: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Answer> {
  return api.request(method, target, {
    headers: { 'tus-resumable': '1.0.0', ...headers },
    ...(body ? { rawBody: body, contentType: 'application/offset+octet-stream' } : {}),
  });
}

export const tusMetadata = (fields: Record<string, string>) =>
  Object.entries(fields).map(([k, v]) => `${k} ${Buffer.from(v, 'utf8').toString('base64')}`).join(',');

/**
 * Sends a request's head and the first `sent` bytes of its body over a raw socket, then
 * cuts the connection (as a client that dies mid-upload). Resolves once the socket is closed.
 */
export async function cutOff(baseUrl: string, head: { method: string; path: string; headers: Record<string, string> }, body: Buffer, sent: number): Promise<void> {
  const url = new URL(baseUrl);
  const socket = net.createConnection({ host: url.hostname, port: Number(url.port) });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const lines = [`${head.method} ${head.path} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(head.headers).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  await new Promise<void>((resolve) => socket.write(body.subarray(0, sent), () => resolve()));
  // Let the server read what arrived before the connection dies.
  await sleep(300);
  socket.destroy();
}

/** Polls `check` until it holds (at most `seconds`); false when it never did. */
export async function eventually(check: () => Promise<boolean> | boolean, seconds = 30): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

// ------------------------------------------------------------------ clamd --

export interface Clamd {
  socket: string;
  stop(): Promise<void>;
}

/** clamd on a socket in a temporary folder, with a signature database of one line: the EICAR file's MD5 and size. */
export async function startClamd(): Promise<Clamd> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-clamd-'));
  fs.mkdirSync(path.join(dir, 'db'));
  fs.writeFileSync(path.join(dir, 'db', 'records-test.hdb'), `${createHash('md5').update(EICAR).digest('hex')}:${EICAR.length}:Records-Test-EICAR\n`);
  const socket = path.join(dir, 'clamd.sock');
  fs.writeFileSync(path.join(dir, 'clamd.conf'), [
    `LocalSocket ${socket}`, `DatabaseDirectory ${path.join(dir, 'db')}`, 'Foreground yes', `LogFile ${path.join(dir, 'clamd.log')}`,
    `TemporaryDirectory ${dir}`, 'StreamMaxLength 64M', '',
  ].join('\n'));
  const child: ChildProcess = spawn('clamd', ['-c', path.join(dir, 'clamd.conf')], { detached: true, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = () => killGroup(child.pid!, 'SIGKILL');
  process.once('exit', kill);
  const stop = async () => {
    kill();
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  if (!(await eventually(() => fs.existsSync(socket), 60))) {
    await stop();
    throw new Error('clamd did not open its socket within 60 s');
  }
  return { socket, stop };
}

// ----------------------------------------------------------------- server --

/** A server of the suite's own: on PostgreSQL a fresh database (dropped by stop), on PGlite a fresh folder. */
export interface SuiteServer {
  server: RunningServer;
  /** SQL on its database: through pg, or (PGlite) with the server stopped and started again. */
  behind(change: (run: (text: string, params?: unknown[]) => Promise<{ rows: any[] }>) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

export async function startSuiteServer(env: Record<string, string>): Promise<SuiteServer> {
  let databaseUrl: string | null = null;
  let drop = async () => {};
  if (DB_KIND === 'postgres') {
    const scratch = await scratchDatabase('files');
    databaseUrl = scratch.url;
    drop = scratch.drop;
  }
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'records-files-')), 'data');
  const start = () => startServer({ databaseUrl, dataDir, env, workers: DB_KIND === 'postgres' ? 2 : 1 });
  const suite: SuiteServer = {
    server: await start(),
    async behind(change) {
      if (databaseUrl) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        try {
          await change((text, params) => client.query(text, params as unknown[]));
        } finally {
          await client.end();
        }
        return;
      }
      const old = suite.server;
      await old.stop();
      const db = new PGlite(path.join(dataDir, 'pgdata'), { extensions: { pg_trgm } });
      try {
        await change((text, params) => db.query(text, params as unknown[]));
      } finally {
        await db.close();
      }
      suite.server = await start();
    },
    async stop() {
      await suite.server.stop();
      await drop();
      fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
    },
  };
  return suite;
}
