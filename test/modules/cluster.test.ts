// Several processes, as an operator runs them (issue 22, point 12): in a cluster
// (WORKERS=2, PostgreSQL only: the embedded database is one process) each worker's process
// metrics carry its `worker` label, a worker killed is started again in its slot and
// counted in records_worker_restarts_total, and a killed primary takes its workers along
// (nothing is left holding the port: the supervisor's restart, deploy/records-service.service,
// starts a whole new service). PGlite runs no cluster: nothing is registered there.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { DB_KIND } from '../helpers/env.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const TOKEN = 'cluster-metrics-token-0123456789';
const servers: RunningServer[] = [];
after(async () => {
  for (const s of servers) await s.stop().catch(() => {});
});

/** GET /metrics over a new connection (so either worker may take it). */
function scrape(server: RunningServer): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(`${server.baseUrl}/metrics`, { agent: false, headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${res.statusCode}: ${body}`))));
    }).on('error', reject);
  });
}

/** The samples of one metric: label text (as printed) → value. */
function samples(body: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const m of body.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? ([^ \\n]+)$`, 'gm'))) found.set(m[1] ?? '', Number(m[2]));
  return found;
}

/** The primary's worker processes, by their slot (RECORDS_WORKER_SLOT in their environment). */
function workers(primary: number): Map<string, number> {
  const found = new Map<string, number>();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== primary) continue;
      const slot = /(?:^|\0)RECORDS_WORKER_SLOT=(\d+)/.exec(fs.readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
      if (slot) found.set(slot, Number(pid));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** Whether process `pid` still runs (a zombie waiting to be reaped does not). */
function runs(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 300; i += 1) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`waited in vain for ${what}`);
}

if (DB_KIND === 'postgres') describe('a cluster of two workers (PostgreSQL)', () => {
  test('each worker\'s process metrics carry its slot; a killed worker is started again in its slot and counted', async () => {
    const server = await startServer({ workers: 2, env: { METRICS_TOKEN: TOKEN, LOG_LEVEL: 'info' } });
    servers.push(server);
    // A scrape leaves out a worker still starting: wait until both have started.
    const before = await until('both workers in the metrics', async () => {
      const body = await scrape(server);
      return samples(body, 'records_process_resident_memory_bytes').size === 2 ? body : undefined;
    });
    for (const name of ['records_process_resident_memory_bytes', 'records_process_start_time_seconds', 'records_nodejs_eventloop_lag_seconds']) {
      assert.deepEqual([...samples(before, name).keys()].sort(), ['{worker="1"}', '{worker="2"}'], `${name}: one series per worker, none summed or dropped`);
    }
    assert.deepEqual([...samples(before, 'records_worker_restarts_total').keys()], [], 'no restart yet');
    // The service's own counts stay one series, summed over the workers.
    assert.ok(samples(before, 'records_live_streams_open').has(''), 'records_live_streams_open is the service\'s');
    assert.ok(samples(before, 'records_job_runs_total').has('{job="mail-delivery",outcome="idle"}'), 'so are the background jobs\' runs (jobs/registry.ts)');

    const first = workers(server.pid).get('1')!;
    process.kill(first, 'SIGKILL');
    const again = await until('worker 1 started again', () => {
      const pid = workers(server.pid).get('1');
      return pid !== undefined && pid !== first ? pid : undefined;
    });
    assert.notEqual(again, first);
    const after = await until('the restart in the metrics, and the new worker in them', async () => {
      const body = await scrape(server);
      const started = samples(body, 'records_process_resident_memory_bytes').size === 2;
      return started && samples(body, 'records_worker_restarts_total').get('{worker="1"}') === 1 ? body : undefined;
    });
    assert.deepEqual([...samples(after, 'records_worker_restarts_total').entries()], [['{worker="1"}', 1]], 'worker 1 restarted once, worker 2 never');
    assert.deepEqual([...samples(after, 'records_process_resident_memory_bytes').keys()].sort(), ['{worker="1"}', '{worker="2"}']);
    const line = fs.readFileSync(server.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
      .find((l) => l.msg === 'worker exited; starting another');
    assert.equal(line?.worker, 1);
    assert.equal(line?.signal, 'SIGKILL');
  });

  test('a killed primary takes its workers along (a supervisor starts the service again)', async () => {
    const server = await startServer({ workers: 2 });
    servers.push(server);
    const pids = await until('both workers', () => {
      const found = workers(server.pid);
      return found.size === 2 ? [...found.values()] : undefined;
    });
    process.kill(server.pid, 'SIGKILL');
    await server.exit;
    await until('the workers to exit', () => (pids.every((pid) => !runs(pid)) ? true : undefined));
  });
});
