// A throwaway S3-compatible server for the S3 store's tests: Ceph's RADOS Gateway from
// Debian's packages (radosgw, ceph-mon, ceph-osd; installed by .ci/run), on a one-host
// cluster of one monitor and one OSD keeping its objects in memory (memstore), without
// authentication between the daemons, in a temporary folder — started and removed by the
// test, like test/faults' throwaway PostgreSQL cluster. No manager daemon: the gateway
// and its pools work without one. Start-up time and memory: docs/decisions.md.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, killGroup } from './server.ts';

export interface RadosGateway {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Seconds from nothing to a gateway answering S3 with a user. */
  startSeconds: number;
  /** The daemons' resident memory now, in MB. */
  residentMb(): number;
  stop(): Promise<void>;
}

function run(program: string, args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { encoding: 'utf8', timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${program} ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

export async function startRadosGateway(): Promise<RadosGateway> {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-radosgw-'));
  for (const sub of ['mon', 'osd', 'run', 'log']) fs.mkdirSync(path.join(dir, sub));
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  const fsid = randomUUID();
  const conf = path.join(dir, 'ceph.conf');
  fs.writeFileSync(conf, `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
ms bind msgr1 = false
ms mon client mode = crc
ms client mode = crc
ms mon service mode = crc
ms service mode = crc
ms cluster mode = crc
ms mon cluster mode = crc
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = 1073741824
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
pid file = ${dir}/run/$name.pid
mon data = ${dir}/mon/$name
osd data = ${dir}/osd/$name
mon cluster log file = ${dir}/log/cluster.log
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
`);
  const daemons: ChildProcess[] = [];
  const daemon = (program: string, args: string[]) => {
    const child = spawn(program, ['-f', '-c', conf, ...args], { detached: true, stdio: 'ignore' });
    daemons.push(child);
    return child;
  };
  const killAll = () => {
    for (const child of daemons) killGroup(child.pid!, 'SIGKILL');
  };
  process.once('exit', killAll);
  const stop = async () => {
    killAll();
    await Promise.all(daemons.map((child) => (child.exitCode === null && child.signalCode === null
      ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run('monmaptool', ['--create', '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, '--fsid', fsid, path.join(dir, 'monmap')]);
    await run('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', path.join(dir, 'monmap'), '-c', conf]);
    daemon('ceph-mon', ['-i', 'a']);
    const osdUuid = randomUUID();
    const id = (await run('ceph', ['-c', conf, '--connect-timeout', '60', 'osd', 'new', osdUuid])).trim();
    fs.mkdirSync(path.join(dir, 'osd', `osd.${id}`));
    await run('ceph-osd', ['-c', conf, '-i', id, '--mkfs', '--osd-uuid', osdUuid]);
    daemon('ceph-osd', ['-i', id]);
    daemon('radosgw', ['-n', 'client.rgw']);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    for (let i = 0; ; i += 1) {
      const answered = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(2_000) }).then(() => true, () => false);
      if (answered) break;
      if (i > 600) throw new Error(`radosgw did not answer on ${endpoint} within 2 minutes (logs in ${dir}/log)`);
      await sleep(200);
    }
    const accessKeyId = `RECORDS${randomBytes(6).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(24).toString('base64url');
    await run('radosgw-admin', ['-c', conf, 'user', 'create', '--uid=records', '--display-name=records', `--access-key=${accessKeyId}`, `--secret-key=${secretAccessKey}`]);
    return {
      endpoint, accessKeyId, secretAccessKey,
      startSeconds: (Date.now() - started) / 1000,
      residentMb: () => daemons.reduce((sum, child) => sum + rssMb(child.pid!), 0),
      stop,
    };
  } catch (err) {
    const logs = fs.existsSync(path.join(dir, 'log'))
      ? fs.readdirSync(path.join(dir, 'log')).map((f) => `${f}: ${fs.readFileSync(path.join(dir, 'log', f), 'utf8').split('\n').slice(-15).join('\n')}`).join('\n')
      : '';
    await stop();
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}
