// The database round trips of one request of a few scenarios, in seconds rather than the
// full benchmark's minutes: a fresh database with a tiny seed, one server process whose
// connections go through the wire counter, and each request's statements printed.
//
//   npm run -s build && node --import tsx bench/trips.ts [scenario id prefix …]
//
// (e.g. `5-notification-post`); without arguments every scenario of the seed. Uses
// BENCH_DATABASE_URL like bench/run.ts and drops its database afterwards.
import { withCountedServer } from './lib/counted-server.js';
import type { SeedSize } from './seed.js';
import {
  cellList, cellPatch, cellPost, gridList, inboxList, notificationPost, personnelList, rowList, stepList, versionList, workflowList, type Scenario,
} from './scenarios.js';

const REQUESTS = 5;
const SIZE: SeedSize = {
  personnel: 20, projects: 2, tables: 3, columnsPerTable: 2, rows: 40, smallTableRows: 4, longRowVersions: 600, recipients: 5,
  postRows: 10, workflows: 2, stepsPerWorkflow: 2,
};

async function main() {
  const only = process.argv.slice(2);
  await withCountedServer('trips', SIZE, async ({ base, seed, counter }) => {
    const scenarios: Scenario[] = [
      personnelList(seed, 'list'), personnelList(seed, 'detail'), cellPatch(seed), cellPost(seed), notificationPost(seed), inboxList(seed), cellList(seed),
      rowList(seed, 'small'), rowList(seed, 'big'), gridList(seed), versionList(seed), workflowList(seed), stepList(seed),
    ].filter((s) => !only.length || only.some((prefix) => s.id.startsWith(prefix)));
    for (const scenario of scenarios) {
      await send(base, scenario);
      counter.reset();
      for (let i = 0; i < REQUESTS; i += 1) await send(base, scenario);
      const background = (text: string) => /^\s*UPDATE mail_outbox\b/i.test(text) || /FROM mail_outbox/i.test(text);
      const statements = counter.statements.filter((s) => !background(s.sql));
      const trips = (counter.roundTrips - (counter.statements.length - statements.length)) / REQUESTS;
      console.log(`${scenario.id}: ${trips} round trips, ${statements.length / REQUESTS} statements per request`);
      for (const s of statements.slice(-Math.round(statements.length / REQUESTS))) console.log(`    ${s.kind} ${s.sql.replace(/\s+/g, ' ').trim().slice(0, 200)}`);
    }
  });
}

async function send(base: string, scenario: Scenario): Promise<void> {
  const next = scenario.spec.setup?.() ?? {};
  const body = next.body ?? scenario.spec.body;
  const response = await fetch(base + (next.path ?? scenario.spec.path), {
    method: scenario.spec.method,
    headers: { ...scenario.spec.headers, ...next.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${scenario.id} answered ${response.status}: ${text.slice(0, 300)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
