// Striped credits (issue 15, target 3; docs/credits.md): an organization's balance is
// the sum of its credit shards, and a write debits its connection's shard. At the
// boundary exactly as many racing writes succeed as the credits pay for, also when no
// single shard can pay (every debit then locks all shards and decides on their total),
// and an operator's --set and --add during writes keep the sum exact. On PostgreSQL the
// writes go through two server processes; the operator's changes are the CLI's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { DATA_DIR, DB_KIND, INITIAL_CREDITS, PROJECT_ROOT, SALES_CONTACT, TEST_DATABASE_URL } from '../helpers/env.ts';
import { describeAnswer, type Answer } from '../helpers/http.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { cleanEnv, spreadOverServers } from '../helpers/server.ts';
import {
  cents, createCell, listLedger, money, newWorkspace, patchCell, readCredits, recordPaths, type Workspace,
} from '../helpers/records.ts';

const NO_CREDITS_PATCH = `Your organization does not have enough credits, contact ${SALES_CONTACT}!`;
const { through } = spreadOverServers();

/** A workspace with `count` cells made while their widget was free, then priced at `price`. */
async function pricedCells(label: string, count: number, price: string): Promise<{ ws: Workspace; cells: any[] }> {
  const ws = await newWorkspace({
    label, allRoles: false, rows: Math.ceil(count / 3), widgets: { priced: { price: '0.00' } },
    columns: { a: 'priced', b: 'priced', c: 'priced' },
  });
  const cells = [];
  for (const row of ws.rows) {
    for (const column of [ws.columns.a, ws.columns.b, ws.columns.c]) {
      if (cells.length < count) cells.push(await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, column.sid, 'setup'));
    }
  }
  expectStatus(await ws.admin.api.patch(recordPaths.widgetDetail(ws.widgets.priced.sid), { price }), 200, 'pricing the widget');
  return { ws, cells };
}

/**
 * PATCHes every cell at once (spread over the server processes); the answers in order. The
 * races stay within the pools' connections (18 writes, 9 a process; a pool holds 10), so a
 * write never waits for a connection (over 3 s, a 503) on a busy machine.
 */
function patchAll(ws: Workspace, cells: any[], tag: string): Promise<Answer[]> {
  return Promise.all(cells.map((cell, i) => patchCell(through(ws.projectAdmin.api, i), cell.sid, `${tag} ${i}`)));
}

/** How many succeeded; every other answer is the spec's credits 406 (never a 500 or 503). */
function countPaid(answers: Answer[]): number {
  let paid = 0;
  for (const res of answers) {
    if (res.status === 200) paid += 1;
    else {
      assert.equal(res.status, 406, `a refused write is the credits 406: ${describeAnswer(res)}`);
      assert.equal(res.text, NO_CREDITS_PATCH);
    }
  }
  return paid;
}

/** The operator CLI on this run's database (PostgreSQL: it runs beside the servers). */
function cli(...args: string[]): Promise<any> {
  const env = { ...cleanEnv(), INITIAL_CREDITS, DATABASE_URL: TEST_DATABASE_URL!, DATA_DIR };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`cli ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

/** The organization's shards as stored (PostgreSQL), in shard order. */
async function shards(orgSid: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT credits FROM credit_shards WHERE organization_sid = $1 ORDER BY shard', [orgSid]);
    return rows.map((r) => r.credits as string);
  } finally {
    await client.end();
  }
}

describe('striped credits at the boundary', () => {
  test('credits for exactly 10 writes, 18 racing PATCHes: 10 succeed, 8 get the 406, $0.00 left, 10 ledger debits', async () => {
    const { ws, cells } = await pricedCells('shardrace', 18, '0.10');
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), '$1.00');
    const answers = await patchAll(ws, cells, 'race');
    assert.equal(countPaid(answers), 10, 'exactly the 10 writes the credits cover');
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), '$0.00');
    const ledger = await listLedger(ws.admin.api, ws.org.sid);
    assert.equal(ledger.length, 10, 'one ledger entry per paid write');
    assert.ok(ledger.every((e) => e.amount === '-$0.10'));
    const paidCells = answers.flatMap((res, i) => (res.status === 200 ? [cells[i].sid] : []));
    assert.deepEqual(ledger.map((e) => e.cell).sort(), paidCells.sort(), 'each paid write debited once, for its own cell');
    if (DB_KIND === 'postgres') assert.deepEqual(await shards(ws.org.sid), Array(16).fill('0.00'), 'every shard emptied, none below zero');
  });

  test('a balance spread so that no shard can pay: every debit decides on the total, exactly', async () => {
    const { ws, cells } = await pricedCells('shardspread', 12, '0.25');
    if (DB_KIND === 'postgres') {
      // The operator's --set spreads the balance over the 16 shards: $0.10 each, none covers $0.25.
      assert.equal((await cli('credits', '--organization', ws.org.sid, '--set', '1.60')).credits, '$1.60');
      assert.deepEqual(await shards(ws.org.sid), Array(16).fill('0.10'));
    } else {
      // PGlite: one connection, one shard; the operator's CLI cannot open the server's folder.
      // INITIAL_CREDITS ($1.00) with the widget at $0.25: 4 writes.
    }
    const expected = DB_KIND === 'postgres' ? 6 : 4;
    const answers = await patchAll(ws, cells, 'spread');
    assert.equal(countPaid(answers), expected, `exactly the ${expected} writes the total covers`);
    const left = DB_KIND === 'postgres' ? '$0.10' : '$0.00';
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), left);
    const ledger = await listLedger(ws.admin.api, ws.org.sid);
    const debits = ledger.filter((e) => e.amount === '-$0.25');
    assert.equal(debits.length, expected, 'one ledger debit per paid write');
    assert.equal(debits[0].balance_after, left, 'a debit that locked every shard knows the exact balance after');
    if (DB_KIND === 'postgres') {
      assert.deepEqual(debits.map((e) => e.balance_after), ['$0.10', '$0.35', '$0.60', '$0.85', '$1.10', '$1.35'],
        'each decided on the total: the balances after, newest first, each once');
      const stored = await shards(ws.org.sid);
      assert.equal(stored.reduce((sum, c) => sum + cents(`$${c}`), 0), 10, 'the shards sum to the balance shown');
    }
  });

  if (DB_KIND === 'postgres') test('the operator\'s --add and --set during 18 racing writes keep the sum exact (PostgreSQL)', async () => {
    const { ws, cells } = await pricedCells('shardoperator', 18, '0.05');
    assert.equal((await cli('credits', '--organization', ws.org.sid, '--set', '10.00')).credits, '$10.00');

    // --add while 18 writes race: all are paid, and the balance is exactly 10.00 + 1.00 - 18 × 0.05.
    const [answers, added] = await Promise.all([patchAll(ws, cells, 'add'), cli('credits', '--organization', ws.org.sid, '--add', '1.00')]);
    assert.equal(countPaid(answers), 18);
    assert.match(added.credits, /^\$\d+\.\d\d$/);
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), '$10.10');
    let ledger = await listLedger(ws.admin.api, ws.org.sid);
    assert.equal(ledger.filter((e) => e.amount === '-$0.05').length, 18, '18 debits');
    assert.equal(ledger.filter((e) => e.name === 'credits added by an operator').length, 1);
    // INITIAL_CREDITS came with the organization, the ledger holds every change since.
    assert.equal(ledger.reduce((sum, e) => sum + cents(e.amount), cents(`$${INITIAL_CREDITS}`)), 1010, 'the ledger sums to the balance');

    // --set while 18 writes race: the balance is the set amount less the debits recorded after it.
    const [again, set] = await Promise.all([patchAll(ws, cells, 'set'), cli('credits', '--organization', ws.org.sid, '--set', '3.00')]);
    assert.equal(set.credits.startsWith('$'), true);
    const paid = countPaid(again);
    ledger = await listLedger(ws.admin.api, ws.org.sid);
    const at = ledger.findIndex((e) => e.name === 'credits set by an operator' && e.balance_after === '$3.00');
    assert.ok(at >= 0, 'the set is in the ledger with its exact balance');
    const after = ledger.slice(0, at);
    assert.ok(after.every((e) => e.amount === '-$0.05'));
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), money(300 - 5 * after.length), 'the set amount less the debits after it');
    assert.equal(ledger.filter((e) => e.amount === '-$0.05').length, 18 + paid, 'one debit per paid write');
    assert.equal(ledger.reduce((sum, e) => sum + cents(e.amount), cents(`$${INITIAL_CREDITS}`)), cents(await readCredits(ws.admin.api, ws.org.sid)),
      'the ledger sums to the balance');
    const stored = await shards(ws.org.sid);
    assert.equal(stored.length, 16);
    assert.equal(money(stored.reduce((sum, c) => sum + cents(`$${c}`), 0)), await readCredits(ws.admin.api, ws.org.sid), 'the shards sum to the balance shown');
  });
});
