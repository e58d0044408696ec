// Prints a results file as the Markdown tables of docs/benchmarks.md:
//   node --import tsx bench/markdown.ts [bench/results/latest.json]
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib/processes.js';
import { renderMarkdown, type Results } from './report.js';

const file = process.argv[2] ?? path.join(ROOT, 'bench', 'results', 'latest.json');
console.log(renderMarkdown(JSON.parse(fs.readFileSync(file, 'utf8')) as Results));
