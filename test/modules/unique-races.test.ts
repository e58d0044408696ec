// Unique rules under concurrency (issue 12, point 5; core/unique.ts): a burst of requests
// that each would create the same unique value gets exactly one success and, for every
// other request, the rule's 4xx (never a 500), and leaves exactly one record. On
// PostgreSQL the burst is spread over two server processes.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newPeerAddress, signInFrom } from '../helpers/peer.ts';
import { anonymous, describeAnswer, type Answer } from '../helpers/http.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { spreadOverServers } from '../helpers/server.ts';
import { PATHS, listPersonnel, newOrganization, paths, strongPassword, unique, uniqueEmail } from '../helpers/factories.ts';
import { createRow, listCells, listPath, newWorkspace, readAll, recordPaths, type Workspace } from '../helpers/records.ts';

const BURST = 12;
/** On PostgreSQL the harness's server and a second process on the same database. */
const { urls: servers, through } = spreadOverServers();

/** Exactly one answer `status`; every other a 400 naming `field` with one of `messages`. Returns the winner. */
function oneWinner(answers: Answer[], status: number, field: string, messages: string[]): Answer {
  const won = answers.filter((a) => a.status === status);
  assert.equal(won.length, 1, `one ${status}: ${answers.map((a) => describeAnswer(a, 200)).join('\n')}`);
  for (const a of answers) {
    if (a === won[0]) continue;
    assert.equal(a.status, 400, describeAnswer(a));
    assert.deepEqual(Object.keys(a.json), [field], describeAnswer(a));
    assert.equal(a.json[field].length, 1, describeAnswer(a));
    assert.ok(messages.includes(a.json[field][0]), describeAnswer(a));
  }
  return won[0];
}

describe('a burst on each unique rule answers one success and the rule\'s 400', () => {
  let ws: Workspace;

  before(async () => {
    ws = await newWorkspace({ label: 'uniq', allRoles: false, columns: { text: 'builtinWidgetTxt' } });
  });

  test('users: one email signed up by 12 at once: every answer is the same 201 (issue 11), and one account is made', async () => {
    const email = uniqueEmail('race');
    const passwords = Array.from({ length: BURST }, () => strongPassword());
    const answers = await Promise.all(passwords.map((password, i) =>
      through(anonymous, i).post(PATHS.signup, { email, password, first_name: 'Race', last_name: `N${i}` })));
    // Signup answers alike whether or not the address has an account (the mail says the rest): no 500, no 400.
    for (const answer of answers) expectStatus(answer, 201, 'each signup of the burst');
    // Exactly one of the passwords is the account's: one account, made by one of the twelve.
    // (Each from an address of its own: eleven failures from one address would meet the sign-in limit.)
    const signIns = await Promise.all(passwords.map((password, i) => signInFrom(newPeerAddress(), email, password, { baseUrl: servers[i % servers.length] })));
    assert.deepEqual(signIns.map((r) => r.status).sort(), [200, ...Array<number>(BURST - 1).fill(406)]);
  });

  test('personnel: one new email added to one organization by 12 requests at once', async () => {
    const email = uniqueEmail('racep');
    const answers = await Promise.all(Array.from({ length: BURST }, (_v, i) =>
      through(ws.admin.api, i).post(paths.personnelList(ws.org.sid, 'detail'), { email, first_name: 'P', last_name: `N${i}` })));
    oneWinner(answers, 201, 'email', [`${email} is already a member of this organization.`, 'This user is already a member of this organization.']);
    const records = (await listPersonnel(ws.admin.api, ws.org.sid)).filter((p) => p.email === email);
    assert.equal(records.length, 1, 'one personnel record');
  });

  test('personnel: one new email added to 6 organizations at once: every one succeeds (one account)', async () => {
    const email = uniqueEmail('racex');
    const orgs = await Promise.all(Array.from({ length: 6 }, (_v, i) => newOrganization(`racex${i}`)));
    const answers = await Promise.all(orgs.map(({ admin, org }, i) =>
      through(admin.api, i).post(paths.personnelList(org.sid, 'detail'), { email, first_name: 'X', last_name: 'Y' })));
    for (const a of answers) expectStatus(a, 201, 'each organization adds the new account');
  });

  test('project members: one personnel added to one project by 12 requests at once', async () => {
    const email = uniqueEmail('racem');
    const person = expectStatus(await ws.admin.api.post(paths.personnelList(ws.org.sid, 'detail'), { email, first_name: 'M', last_name: 'M' }), 201).json;
    const answers = await Promise.all(Array.from({ length: BURST }, (_v, i) =>
      through(ws.admin.api, i).post(recordPaths.memberList(ws.project.sid), { personnel: person.sid, permission: 'view' })));
    oneWinner(answers, 201, 'personnel', [`${person.first_name} ${person.last_name} is already a member of this project.`, 'This personnel record is already a member of this project.']);
    const members = (await readAll(ws.admin.api, (q) => recordPaths.memberList(ws.project.sid, 'detail', q))).filter((m) => m.personnel.sid === person.sid);
    assert.equal(members.length, 1, 'one membership');
  });

  test('cells: one row and column written by 12 POSTs at once', async () => {
    const row = await createRow(ws);
    const answers = await Promise.all(Array.from({ length: BURST }, (_v, i) =>
      through(ws.projectAdmin.api, i).post(recordPaths.cellList(ws.org.sid, 'detail', { row__sid: row.sid }), { column: ws.columns.text.sid, data: `cell ${i}` })));
    const won = answers.find((a) => a.status === 201);
    assert.ok(won, answers.map((a) => describeAnswer(a, 200)).join('\n'));
    oneWinner(answers, 201, 'column', [
      `The row already has a cell in this column (${won.json.sid}); PATCH that cell instead.`,
      'The row already has a cell in this column; PATCH that cell instead.',
    ]);
    const cells = await listCells(ws.admin.api, ws.org.sid, row.sid);
    assert.deepEqual(cells.map((c) => c.sid), [won.json.sid], 'one cell');
  });

  test('idempotency keys: one key sent by 12 POSTs at once creates one row', async () => {
    const key = unique('key');
    const name = `Row ${unique('r')}`;
    const api = ws.projectAdmin.api.with({ 'idempotency-key': key });
    const answers = await Promise.all(Array.from({ length: BURST }, (_v, i) =>
      through(api, i).post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name })));
    const sids = new Set<string>();
    for (const a of answers) {
      if (a.status === 201) sids.add(a.json.sid);
      else assert.equal(a.status, 409, describeAnswer(a));
    }
    assert.equal(sids.size, 1, 'every success is the one row');
    const rows = (await readAll(ws.admin.api, (q) => recordPaths.rowList(ws.org.sid, 'name', { table__sid: ws.table.sid, ...q }))).filter((r) => r.name === name);
    assert.equal(rows.length, 1, 'one row');
  });

  test('steps: 12 steps inserted at order 1 of one workflow at once take the orders 1 to 12', async () => {
    const workflow = expectStatus(await ws.admin.api.post(listPath('tables', 'workflow')(ws.org.sid), { name: `W ${unique('w')}` }), 201).json;
    const answers = await Promise.all(Array.from({ length: BURST }, (_v, i) =>
      through(ws.admin.api, i).post(listPath('tables', 'step')(ws.org.sid), { name: `s${i}`, workflow: workflow.sid, widget: 'builtinWidgetTxt', order: 1 })));
    for (const a of answers) expectStatus(a, 201, 'each step');
    const steps = (await readAll(ws.admin.api, (q) => listPath('tables', 'step')(ws.org.sid, 'detail', { workflow__sid: workflow.sid, ...q })))
      .filter((s) => s.workflow.sid === workflow.sid);
    assert.deepEqual(steps.map((s) => s.order).sort((a, b) => a - b), Array.from({ length: BURST }, (_v, i) => i + 1));
  });
});
