// Peak memory of a command and every process it starts (issue 22, point 7).
//
//   node scripts/measure-memory.mjs [--health URL] [--json] -- <command> [args...]
//
// Runs the command in a process group of its own and samples /proc every 50 ms: the
// resident set (RSS) of each process of the tree (the command, its children, theirs),
// summed, and their proportional set (PSS: a page shared by n processes counts 1/n, so
// the node binary's pages that npm, the build steps and the server all map count once).
// With --health it waits for URL to answer 200, notes the time, then stops the command
// with SIGTERM (the server's graceful stop); without, it waits for the command to exit.
// Prints the peaks, the processes alive at the RSS peak and the time to health, with the
// CPU time the tree had used by then (user and system, ended children included: on a
// shared machine the wall time follows the load, the CPU time much less) and the load
// average when the command started.
// `/usr/bin/time -v` reports one process's peak only (the largest child's), not the sum.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

const args = process.argv.slice(2);
const dash = args.indexOf('--');
if (dash < 0 || dash === args.length - 1) {
  console.error('usage: node scripts/measure-memory.mjs [--health URL] [--json] -- <command> [args...]');
  process.exit(2);
}
const options = args.slice(0, dash);
const command = args.slice(dash + 1);
const health = options.includes('--health') ? options[options.indexOf('--health') + 1] : null;
const json = options.includes('--json');
const PAGE_KB = 4;
const SAMPLE_MS = 50;

/** Every process's parent, from /proc/<pid>/stat. */
function parents() {
  const map = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields after it are fixed.
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      map.set(Number(name), Number(after[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  return map;
}

/** The root and its descendants. */
function tree(root) {
  const parentOf = parents();
  const found = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (!found.has(pid) && found.has(ppid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found];
}

function read(pid) {
  try {
    const rssKb = Number(fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_KB;
    let pssKb = rssKb;
    try {
      pssKb = Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))[1]);
    } catch {
      // no smaps_rollup (old kernels): count RSS
    }
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, rssKb, pssKb, cmd };
  } catch {
    return null;
  }
}

/** CPU seconds used by the tree: each process's own and that of its children it has waited for (utime, stime, cutime, cstime). */
function cpuSeconds(root) {
  const ticks = 100; // USER_HZ, 100 on Linux
  let sum = 0;
  for (const pid of tree(root)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += after.slice(11, 15).reduce((total, field) => total + Number(field), 0);
    } catch {
      // the process ended meanwhile (its parent's cutime has it once waited for)
    }
  }
  return sum / ticks;
}

const loadAverage = os.loadavg()[0];
const started = process.hrtime.bigint();
const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
const child = spawn(command[0], command.slice(1), { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
let peakRss = { kb: 0, at: 0, processes: [] };
let peakPss = { kb: 0, at: 0 };
let healthyAt = null;
let cpuAtHealth = null;
let exited = null;
child.on('exit', (code, signal) => { exited = { code, signal }; });

const sampler = setInterval(() => {
  if (exited) return;
  const processes = tree(child.pid).map(read).filter(Boolean);
  const rss = processes.reduce((sum, p) => sum + p.rssKb, 0);
  const pss = processes.reduce((sum, p) => sum + p.pssKb, 0);
  if (rss > peakRss.kb) peakRss = { kb: rss, at: seconds(), processes };
  if (pss > peakPss.kb) peakPss = { kb: pss, at: seconds() };
}, SAMPLE_MS);

async function waitForHealth() {
  for (;;) {
    if (exited) throw new Error(`the command exited (${JSON.stringify(exited)}) before ${health} answered`);
    try {
      const res = await fetch(health, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

try {
  if (health) {
    await waitForHealth();
    healthyAt = seconds();
    cpuAtHealth = cpuSeconds(child.pid);
    process.kill(-child.pid, 'SIGTERM');
  }
  while (!exited) await new Promise((resolve) => setTimeout(resolve, 50));
} catch (err) {
  try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
  console.error(err.message);
  process.exitCode = 1;
} finally {
  clearInterval(sampler);
}

const mb = (kb) => Math.round(kb / 1024);
const result = {
  command: command.join(' '),
  seconds: Number(seconds().toFixed(2)),
  seconds_to_health: healthyAt === null ? null : Number(healthyAt.toFixed(2)),
  cpu_seconds_to_health: cpuAtHealth === null ? null : Number(cpuAtHealth.toFixed(2)),
  load_average: Number(loadAverage.toFixed(1)),
  peak_rss_mb: mb(peakRss.kb),
  peak_rss_at_seconds: Number(peakRss.at.toFixed(2)),
  peak_pss_mb: mb(peakPss.kb),
  at_peak: peakRss.processes.map((p) => ({ pid: p.pid, rss_mb: mb(p.rssKb), pss_mb: mb(p.pssKb), cmd: p.cmd.slice(0, 100) })),
  exit: exited,
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(`${result.command}: peak ${result.peak_rss_mb} MB RSS (${result.peak_pss_mb} MB PSS) at ${result.peak_rss_at_seconds} s`
    + `${healthyAt === null ? '' : `; /health/ answered after ${result.seconds_to_health} s (${result.cpu_seconds_to_health} s of CPU)`}; ${result.seconds} s in all`
    + ` (load average ${result.load_average} at the start)`);
  for (const p of result.at_peak) console.log(`  ${String(p.rss_mb).padStart(5)} MB  ${p.cmd}`);
}
