// The limits of this machine for an HTTP service: a bare Fastify route returning a small
// JSON object, and the same route doing one `SELECT 1` through a pg pool. Run like the
// service: WORKERS processes (node's cluster) sharing PORT on HOST, a pool of 10
// connections per process, LOG_LEVEL=warn.
//   PORT=… WORKERS=2 DATABASE_URL=postgres://… node --import tsx bench/limits/bare.ts
import cluster from 'node:cluster';
import Fastify from 'fastify';
import pg from 'pg';

const port = Number(process.env.PORT ?? 8100);
const host = process.env.HOST ?? '127.0.0.1';
const workers = Number(process.env.WORKERS ?? 2);

async function serve() {
  // Idle connections are given back within a second: pgbench shares the server with these processes.
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, idleTimeoutMillis: 1000 });
  pool.on('error', () => {});
  const app = Fastify({ logger: { level: 'warn' } });
  app.get('/bare', async () => ({ ok: true }));
  app.get('/select1', async () => {
    const { rows } = await pool.query('SELECT 1 AS one');
    return { ok: rows[0].one === 1 };
  });
  app.get('/health', async () => ({ ok: true }));
  const stop = async () => {
    await app.close();
    await pool.end();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  await app.listen({ port, host });
}

if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i += 1) cluster.fork();
  let stopping = false;
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  cluster.on('exit', () => {
    if (stopping && Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  serve().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
