// npm start's first step: build when the build tools are installed (a development
// checkout after `npm ci`), or start from the build already in dist/ when they are not
// (a production install: `npm ci && npm run build && npm prune --omit=dev`).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compiler = path.join(root, 'node_modules', 'typescript', 'package.json');

if (existsSync(compiler)) {
  const npm = process.env.npm_execpath;
  const result = npm
    ? spawnSync(process.execPath, [npm, 'run', '-s', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
if (existsSync(path.join(root, 'dist', 'server.js'))) process.exit(0);
console.error('npm start: dist/ holds no build and the build tools are not installed (npm ci --omit=dev leaves them out).\n'
  + 'Install for production with: npm ci && npm run build && npm prune --omit=dev   (then npm start)');
process.exit(1);
