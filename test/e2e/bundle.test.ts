// The JavaScript the first screen loads (the entry script of dist/web/index.html and the
// modules it preloads) stays within 250 kB gzipped. Screens loaded later (lazy routes)
// do not count. `npm test` builds first, so this reads the build under test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../helpers/env.ts';
import { firstScreenScripts } from '../../bench/frontend.ts'; // the benchmark reports the same sizes

const WEB = path.join(PROJECT_ROOT, 'dist', 'web');
const BUDGET_BYTES = 250_000;


test('the first screen loads at most 250 kB of gzipped JavaScript', () => {
  const indexFile = path.join(WEB, 'index.html');
  assert.ok(fs.existsSync(indexFile), `${indexFile} is missing: npm run build builds the app`);
  const html = fs.readFileSync(indexFile, 'utf8');
  const scripts = firstScreenScripts(html);
  assert.ok(scripts.length > 0, 'index.html loads a script');
  let total = 0;
  const sizes: string[] = [];
  for (const src of scripts) {
    assert.match(src, /^\/assets\/[\w.-]+\.js$/, `${src}: a hashed asset under /assets/`);
    const gzipped = gzipSync(fs.readFileSync(path.join(WEB, src)), { level: 9 }).length;
    sizes.push(`${src} ${gzipped} B`);
    total += gzipped;
  }
  assert.ok(total <= BUDGET_BYTES, `first screen JavaScript ${total} B gzipped > ${BUDGET_BYTES} B: ${sizes.join(', ')}`);
});
