// The build, step by step, each step only when its inputs changed (issue 22, point 7).
//
//   node scripts/build.mjs [service | web] [--force]      (no part: both)
//
// `npm run build`, `npm start` (its prestart), `npm run cli` and the tests all build through
// here. A step is skipped when the hash of its inputs (their files' names and contents,
// package-lock.json among them, so an upgraded compiler rebuilds) equals the one recorded
// in dist/.build/<step>.json after it last succeeded and its outputs are there: a start with
// nothing changed costs a stat of each input (a few ms: the contents are read only when a
// file's size, times or inode differ from those recorded with the hash), not a build (8–30 s).
//
// Memory: the steps run one after another, each in a process of its own that ends before
// the next starts, and each is kept small: tsc single-threaded (its parallel checkers took
// ~490 MB, one takes ~285 MB, in the same time on two cores), the compiler's native binary
// started directly (not through its Node wrapper, ~45 MB more), the data-folder template
// made by PGlite's initdb alone (scripts/embedded-template.mjs). The first `npm start` of
// a fresh clone peaks at the template step; `node scripts/measure-memory.mjs` measures it.
//
// Without the build tools (a production install: `npm ci && npm run build && npm prune
// --omit=dev`), a step whose outputs are in dist/ keeps them; one whose outputs are missing
// fails with how to install.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (...parts) => path.join(root, ...parts);
/** Raised when the steps change in a way their stamps cannot see. */
const STAMP_FORMAT = 1;
const INSTALL = 'Install for production with: npm ci && npm run build && npm prune --omit=dev   (then npm start)';

/** The TypeScript compiler: its native binary when it has one (TypeScript 7), else its Node entry. */
async function tsc() {
  const lib = at('node_modules', 'typescript', 'lib', 'getExePath.js');
  if (fs.existsSync(lib)) {
    try {
      const { default: getExePath } = await import(pathToFileURL(lib).href);
      const exe = getExePath();
      if (fs.existsSync(exe)) return [exe];
    } catch {
      // fall back to the Node entry
    }
  }
  return [process.execPath, at('node_modules', 'typescript', 'bin', 'tsc')];
}

const STEPS = {
  service: {
    what: 'the service (tsc)',
    inputs: ['src', 'tsconfig.json', 'package-lock.json'],
    outputs: ['dist/server.js', 'dist/cli.js'],
    tool: 'node_modules/typescript/package.json',
    async run() {
      // Single-threaded: see the file's comment. Old outputs of renamed sources are left, as tsc does.
      exec([...(await tsc()), '-p', '.', '--singleThreaded']);
      fs.rmSync(at('dist', 'db', 'migrations'), { recursive: true, force: true });
      fs.cpSync(at('src', 'db', 'migrations'), at('dist', 'db', 'migrations'), { recursive: true });
    },
  },
  template: {
    what: 'the embedded data-folder template',
    inputs: ['scripts/embedded-template.mjs', 'src/db/template.ts', 'node_modules/@electric-sql/pglite/package.json'],
    outputs: ['dist/db/pgdata-template.tar.gz', 'dist/db/pgdata-template.json'],
    // PGlite is a dependency of the service: the template can be made in a production install too.
    tool: 'node_modules/@electric-sql/pglite/package.json',
    // SKIP_PGDATA_TEMPLATE=1: the script removes the template (new folders run initdb then).
    always: () => process.env.SKIP_PGDATA_TEMPLATE === '1',
    async run() {
      exec([process.execPath, at('scripts', 'embedded-template.mjs')]);
    },
  },
  'web-types': {
    what: 'the web app\'s type check (tsc -p web)',
    inputs: ['web/src', 'web/tsconfig.json', 'package-lock.json'],
    outputs: [],
    tool: 'node_modules/typescript/package.json',
    async run() {
      exec([...(await tsc()), '-p', 'web', '--singleThreaded']);
    },
  },
  web: {
    what: 'the web app (vite build)',
    inputs: ['web/src', 'web/index.html', 'web/vite.config.ts', 'web/public', 'package-lock.json'],
    outputs: ['dist/web/index.html'],
    tool: 'node_modules/vite/package.json',
    async run() {
      exec([process.execPath, at('node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']);
    },
  },
};
const PARTS = { service: ['service', 'template'], web: ['web-types', 'web'] };

function exec(command) {
  const result = spawnSync(command[0], command.slice(1), { cwd: root, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw Object.assign(new Error(`${path.basename(command[1] ?? command[0])} failed`), { exitCode: result.status ?? 1 });
}

/**
 * The inputs as they are on disk: every file's relative name and its stat (size, times,
 * inode), in a fixed order (node_modules folders left out), and the names that are missing.
 */
const walked = new Map(); // an input named by several steps (web/src, package-lock.json) is walked once

function inputsOf(step) {
  return step.inputs.flatMap((input) => {
    if (!walked.has(input)) walked.set(input, walk(input));
    return walked.get(input);
  });
}

function walk(input) {
  const entries = [];
  const add = (relative) => {
    const full = at(relative);
    let stat;
    try {
      stat = fs.statSync(full, { bigint: true });
    } catch {
      entries.push({ relative, stat: null });
      return;
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(full).sort()) if (name !== 'node_modules') add(path.posix.join(relative, name));
    } else {
      entries.push({ relative, stat });
    }
  };
  add(input);
  return entries;
}

/**
 * What the stats say (no file read): equal to the recorded one, the files are the ones
 * hashed last time. Modification and change times in nanoseconds with the size and inode:
 * a write changes the modification time, and a tool that restores it (tar, rsync -t)
 * still changes the change time.
 */
function statsKey(entries) {
  const hash = createHash('sha256').update(`stats ${STAMP_FORMAT}\n`);
  for (const { relative, stat } of entries) {
    hash.update(stat ? `${relative} ${stat.size} ${stat.mtimeNs} ${stat.ctimeNs} ${stat.ino}\n` : `missing ${relative}\n`);
  }
  return hash.digest('hex');
}

/** The hash of the inputs' contents: every file's relative name, size and contents. */
function contentsHash(entries) {
  const hash = createHash('sha256').update(`format ${STAMP_FORMAT}\n`);
  for (const { relative, stat } of entries) {
    if (!stat) hash.update(`missing ${relative}\n`);
    else hash.update(`file ${relative} ${stat.size}\n`).update(fs.readFileSync(at(relative)));
  }
  return hash.digest('hex');
}

const stampFile = (name) => at('dist', '.build', `${name}.json`);

function recorded(name) {
  try {
    return JSON.parse(fs.readFileSync(stampFile(name), 'utf8'));
  } catch {
    return null;
  }
}

function record(name, inputs, stats, built = new Date().toISOString()) {
  fs.mkdirSync(path.dirname(stampFile(name)), { recursive: true });
  fs.writeFileSync(`${stampFile(name)}.tmp`, JSON.stringify({ inputs, stats, built }) + '\n');
  fs.renameSync(`${stampFile(name)}.tmp`, stampFile(name));
}

/**
 * The step's inputs' hash, and whether it is the one recorded. The files are read only
 * when their stats differ from those recorded with it (a start with nothing changed
 * reads none); then, when the contents are the same after all (a checkout that touched
 * files), the new stats are recorded so that the next start reads none either.
 */
function inputsNow(name, step) {
  const entries = inputsOf(step);
  const stats = statsKey(entries);
  const stamp = recorded(name);
  if (stamp && stamp.stats === stats) return { inputs: stamp.inputs, stats, same: true };
  const inputs = contentsHash(entries);
  const same = stamp?.inputs === inputs;
  return { inputs, stats, same, restamp: same ? () => record(name, inputs, stats, stamp.built) : null };
}

async function build(names, force) {
  for (const name of names) {
    const step = STEPS[name];
    const { inputs, stats, same, restamp } = inputsNow(name, step);
    const outputsThere = step.outputs.every((o) => fs.existsSync(at(o)));
    const current = !force && !step.always?.() && outputsThere && same;
    if (current) {
      restamp?.();
      continue;
    }
    if (!fs.existsSync(at(step.tool))) {
      if (outputsThere) {
        if (!same && step.outputs.length) {
          console.error(`build: ${step.what} in dist/ is kept (its sources may be newer, but the build tools are not installed)`);
        }
        continue;
      }
      console.error(`build: dist/ holds no build of ${step.what} and the build tools are not installed (npm ci --omit=dev leaves them out).\n${INSTALL}`);
      process.exit(1);
    }
    const started = Date.now();
    // A step that fails or is stopped half-way leaves no stamp: the next build does it again.
    fs.rmSync(stampFile(name), { force: true });
    try {
      await step.run();
    } catch (err) {
      console.error(`build: ${step.what} failed${err.exitCode ? '' : `: ${err.message}`}`);
      process.exit(err.exitCode ?? 1);
    }
    record(name, inputs, stats);
    console.error(`build: ${step.what} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

const args = process.argv.slice(2);
const unknown = args.filter((a) => !['--force', ...Object.keys(PARTS)].includes(a));
if (unknown.length) {
  console.error(`usage: node scripts/build.mjs [service | web] [--force]   (unknown: ${unknown.join(' ')})`);
  process.exit(2);
}
const parts = args.filter((a) => a in PARTS);
await build((parts.length ? parts : Object.keys(PARTS)).flatMap((p) => PARTS[p]), args.includes('--force'));
