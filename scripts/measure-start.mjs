// `npm start` measured as an operator meets it (issue 22, point 7): the first start of a
// fresh clone (the build included) and a second start with nothing changed, each until
// GET /health/ answers 200; the peak memory of every process `npm start` runs (npm, the
// build's steps, the server), from scripts/measure-memory.mjs.
//
//   node scripts/measure-start.mjs [--npm-ci] [--port 18960]
//
// The clone is this checkout's files as git sees them now (uncommitted ones too), in
// a temporary folder with no dist/ and no data/. Its node_modules are this checkout's,
// linked file by file (cp -al: no download, no disk); --npm-ci runs `npm ci --offline`
// there instead (from npm's cache), which is what a fresh clone runs, but is not part of
// `npm start`'s figures. The embedded database; the clone is removed afterwards.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const port = args.includes('--port') ? Number(args[args.indexOf('--port') + 1]) : 18960;
const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'records-start-'));

function measure(label) {
  const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'measure-memory.mjs'), '--json', '--health', `http://127.0.0.1:${port}/health/`, '--', 'npm', 'start'], {
    cwd: clone,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), LOG_LEVEL: 'warn', DATA_DIR: path.join(clone, 'data') },
    encoding: 'utf8',
  });
  const line = run.stdout.trim().split('\n').pop();
  if (run.status !== 0 || !line?.startsWith('{')) throw new Error(`${label}: ${run.stderr}\n${run.stdout}`);
  return { label, ...JSON.parse(line) };
}

try {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!fs.existsSync(path.join(root, file))) continue; // deleted, not yet committed
    fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    fs.copyFileSync(path.join(root, file), path.join(clone, file));
  }
  if (args.includes('--npm-ci')) {
    execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: clone, stdio: 'inherit' });
  } else {
    execFileSync('cp', ['-al', path.join(root, 'node_modules'), path.join(clone, 'node_modules')]);
  }
  const results = [measure('first start of a fresh clone (build included)'), measure('second start, nothing changed')];
  console.log(`| start | peak RSS, every process | peak PSS | /health/ answered after | CPU time by then, every process | load average at the start |\n|---|---|---|---|---|---|`);
  for (const r of results) {
    console.log(`| ${r.label} | ${r.peak_rss_mb} MB | ${r.peak_pss_mb} MB | ${r.seconds_to_health} s | ${r.cpu_seconds_to_health} s | ${r.load_average} |`);
  }
  for (const r of results) {
    console.log(`\n${r.label}: at the peak (${r.peak_rss_at_seconds} s)`);
    for (const p of r.at_peak) console.log(`  ${String(p.rss_mb).padStart(5)} MB  ${p.cmd}`);
  }
} finally {
  fs.rmSync(clone, { recursive: true, force: true });
}
