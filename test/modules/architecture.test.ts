// The layout rules of issue 23 that the code keeps (docs/ARCHITECTURE.md): no import cycle
// among src/core's files (type-only imports count: they are what tied access.ts, auth.ts and
// rules.ts together), and no file under src/modules longer than 300 lines. Read from the
// source, not the server; each check also runs on a planted case, so it cannot pass blind.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
const MODULE_MAX_LINES = 300;

/** Every .ts file under `dir`, as paths relative to the repository. */
function sources(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(dir, file))
    .sort();
}

/** The relative modules a source imports or re-exports (static, dynamic and type-only), as repository paths. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return specifiers.map((specifier) => path.join(path.dirname(file), specifier).replace(/\.js$/, '.ts'));
}

/** The import cycles among `files` (each as the list of files around it), found by a depth-first walk. */
function cycles(files: Map<string, string>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of importsOf(file, files.get(file)!)) {
      if (!files.has(next)) continue;
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('the code\'s layout', () => {
  test('no import cycle among the files of src/core (type-only imports included)', () => {
    const core = new Map(sources('src/core').map((file) => [file, fs.readFileSync(path.join(root, file), 'utf8')]));
    assert.ok(core.size > 20, `src/core has ${core.size} files`);
    assert.deepEqual(cycles(core).map((cycle) => cycle.join(' > ')), []);
    // The walk sees a planted cycle through a type-only import, as the one it replaced.
    const planted = new Map([
      ['src/core/a.ts', "import type { B } from './b.js';\n"],
      ['src/core/b.ts', "import { c } from './c.js';\nexport type B = 1;\n"],
      ['src/core/c.ts', "export { a } from './a.js';\n"],
    ]);
    assert.deepEqual(cycles(planted).map((cycle) => cycle.join(' > ')), ['src/core/a.ts > src/core/b.ts > src/core/c.ts > src/core/a.ts']);
  });

  test(`no file under src/modules over ${MODULE_MAX_LINES} lines`, () => {
    const files = sources('src/modules');
    assert.ok(files.length > 50, `src/modules has ${files.length} files`);
    const lines = (file: string) => fs.readFileSync(path.join(root, file), 'utf8').split('\n').length - 1;
    const long = files.map((file) => `${file}: ${lines(file)} lines`).filter((entry) => Number(/: (\d+) lines$/.exec(entry)![1]) > MODULE_MAX_LINES);
    assert.deepEqual(long, []);
  });

  test('a row is locked with the caller\'s standing in one place: records/lock.ts (lockRow)', () => {
    const texts = sources('src').map((file) => [file, fs.readFileSync(path.join(root, file), 'utf8')] as const);
    // The join of a row to the caller's personnel record and project role, for one row.
    const standing = texts.filter(([, text]) => /rowRole\.sql\(/.test(text) && /LEFT JOIN personnel/.test(text)).map(([file]) => file);
    assert.deepEqual(standing, ['src/modules/records/lock.ts']);
    // Every lock of record_rows: lockRow, and an import's batch, which locks its lines' rows by key in one
    // statement (imports/repository.ts existingRows: no statement per line), its standing checked on the project.
    const locks = texts.filter(([, text]) => /FOR UPDATE OF (r|record_rows)\b|FROM record_rows\b[^`;]*FOR UPDATE/.test(text)).map(([file]) => file);
    assert.deepEqual(locks, ['src/modules/imports/repository.ts', 'src/modules/records/lock.ts']);
  });
});
