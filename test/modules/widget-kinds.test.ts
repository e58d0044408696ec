// The widget kinds that hold values (issue 24; widgets/kinds.ts): number (with a unit), date,
// single and multiple choice, a record of another table, barcode/QR and rich text. Each is
// checked on every cell write (POST and PATCH) with a 400 on `data` that names the problem,
// and nothing is written (no cell, no version, no debit); a column's settings are checked
// against its widget's kind when it is made.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectFieldErrors, expectStatus } from '../helpers/assertions.ts';
import { countVersions, createCell, createRow, newWorkspace, patchCell, postCell, readCredits, recordPaths, type Workspace } from '../helpers/records.ts';

describe('widget kinds: what a cell of each may hold', () => {
  let ws: Workspace;
  const col: Record<string, any> = {};
  let other: any;
  let target: any;
  let row: any;

  const column = async (name: string, widget: string, settings?: Record<string, unknown>, tableSid = ws.table.sid) => {
    const res = await ws.admin.api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: tableSid }), { name, widget, ...(settings ? { settings } : {}) });
    expectStatus(res, 201, `column ${name}`);
    return res.json;
  };

  before(async () => {
    ws = await newWorkspace({ label: 'kinds', allRoles: false });
    other = expectStatus(await ws.admin.api.post(recordPaths.tableList(ws.org.sid), { name: 'Suppliers' }), 201).json;
    col.number = await column('Weight', 'builtinWidgetNum', { unit: 'mg' });
    col.date = await column('Received', 'builtinWidgetDat');
    col.choice = await column('Status', 'builtinWidgetCho', { choices: ['Open', 'Done'] });
    col.multiple = await column('Tags', 'builtinWidgetMul', { choices: ['Red', 'Blue', 'Green'] });
    col.link = await column('Supplier', 'builtinWidgetFky', { table: other.sid });
    col.barcode = await column('Label', 'builtinWidgetBar');
    col.rich = await column('Notes', 'builtinWidgetRtx');
    // A record of the other table, for the foreign key.
    target = expectStatus(await ws.projectAdmin.api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: other.sid, project__sid: ws.project.sid }),
      { name: 'Acme' }), 201).json;
    row = await createRow(ws);
  });

  test('good values are written, one of each kind', async () => {
    const good: [string, string][] = [
      ['number', '-12.5e2'], ['date', '2024-02-29'], ['choice', 'Done'], ['multiple', '["Red","Green"]'], ['link', target.sid],
      ['barcode', 'LOT-2024/001 ÄÖ'], ['rich', JSON.stringify({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hi' }] }] })],
    ];
    for (const [key, data] of good) await createCell(ws.projectAdmin.api, ws.org.sid, row.sid, col[key].sid, data);
  });

  test('bad values: 400 on data naming the problem; no cell, no version, no debit', async () => {
    const fresh = await createRow(ws);
    const before = { versions: await countVersions(ws.admin.api, ws.org.sid, fresh.sid), credits: await readCredits(ws.admin.api, ws.org.sid) };
    const bad: [string, string, string][] = [
      ['number', '12 mg', 'Enter a number (such as 12, -0.5 or 1.2e3), in mg.'],
      ['number', 'NaN', 'Enter a number (such as 12, -0.5 or 1.2e3), in mg.'],
      ['date', '2023-02-29', 'Enter a date as YYYY-MM-DD (such as 2024-01-15).'],
      ['date', '15/01/2024', 'Enter a date as YYYY-MM-DD (such as 2024-01-15).'],
      ['choice', 'done', "Select one of the column's choices: Open, Done."],
      ['multiple', 'Red', 'Send the selected choices as a JSON list of texts (such as ["Red", "Blue"]).'],
      ['multiple', '["Red","Pink","Gold"]', "Not among the column's choices: Pink, Gold."],
      ['multiple', '["Red","Red"]', 'Each choice may be selected only once.'],
      ['link', fresh.sid, `No record ${fresh.sid} in the table ${other.sid} of this organization.`],
      ['link', 'not a sid', `Enter the sid of a record of the table ${other.sid}.`],
      ['barcode', 'line\nbreak', 'A barcode or QR code holds no control characters (tabs, line breaks …).'],
      ['barcode', 'x'.repeat(2954), 'A barcode or QR code holds at most 2953 bytes.'],
      ['rich', '<p>hi</p>', 'Rich text is a JSON document ({"type": "doc", "content": [...]}); this is not JSON.'],
      ['rich', '{"type":"paragraph"}', 'Rich text is a JSON document whose "type" is "doc".'],
      ['rich', '{"type":"doc","content":[{"text":"x"}]}', 'Each node of the rich text is an object with a "type".'],
    ];
    for (const [key, data, message] of bad) {
      expectFieldErrors(await postCell(ws.projectAdmin.api, ws.org.sid, fresh.sid, col[key].sid, data), { data: [message] }, `${key}: ${data.slice(0, 30)}`);
    }
    assert.equal(await countVersions(ws.admin.api, ws.org.sid, fresh.sid), before.versions, 'no version');
    assert.equal(await readCredits(ws.admin.api, ws.org.sid), before.credits, 'no debit');
    const cells = await ws.admin.api.get(recordPaths.cellList(ws.org.sid, 'name', { row__sid: fresh.sid }));
    assert.equal(cells.json.count, 0, 'no cell');
    // An empty value is every kind's (a cleared cell).
    await createCell(ws.projectAdmin.api, ws.org.sid, fresh.sid, col.number.sid, '');
  });

  test('a PATCH is checked the same way, and the cell keeps its value', async () => {
    const fresh = await createRow(ws);
    const cell = await createCell(ws.projectAdmin.api, ws.org.sid, fresh.sid, col.date.sid, '2024-01-15');
    expectFieldErrors(await patchCell(ws.projectAdmin.api, cell.sid, 'tomorrow'), { data: ['Enter a date as YYYY-MM-DD (such as 2024-01-15).'] });
    assert.equal(expectStatus(await ws.admin.api.get(recordPaths.cellDetail(cell.sid)), 200).json.data, '2024-01-15');
    expectStatus(await patchCell(ws.projectAdmin.api, cell.sid, '2024-12-31'), 200);
  });

  test("a column's settings must fit its widget's kind", async () => {
    const post = (body: Record<string, unknown>) => ws.admin.api.post(recordPaths.columnList(ws.org.sid, 'detail', { table__sid: ws.table.sid }), body);
    expectFieldErrors(await post({ name: 'S', widget: 'builtinWidgetCho' }), { 'settings.choices': ['A choice column needs its choices: a list of at least one text.'] });
    expectFieldErrors(await post({ name: 'S', widget: 'builtinWidgetCho', settings: { choices: ['A', 'A'] } }), { 'settings.choices': ['Each choice may appear only once.'] });
    expectFieldErrors(await post({ name: 'S', widget: 'builtinWidgetNum', settings: { choices: ['A'] } }), { 'settings.choices': ['A number column takes only: unit.'] });
    expectFieldErrors(await post({ name: 'S', widget: 'builtinWidgetTxt', settings: { unit: 'mg' } }), { 'settings.unit': ['A column of a text widget takes no settings.'] });
    expectFieldErrors(await post({ name: 'S', widget: 'builtinWidgetFky' }), { 'settings.table': ['A foreign key column needs the sid of the table its values point to.'] });
    expectFieldErrors(await post({ name: 'S', widget: 'builtinWidgetFky', settings: { table: ws.outsiderOrg?.sid ?? 'aaaaaaaaaaaaaaaa' } }), { 'settings.table': ['Select a table of this organization.'] });
    expectFieldErrors(await post({ name: 'S', widget: 'builtinWidgetNum', default_value: 'ten' }), { default_value: ['Enter a number (such as 12, -0.5 or 1.2e3).'] });
  });
});
