// The history screen's comparison of two versions' data (web/src/features/history/components/diff.ts):
// one entry per changed field, cells named by their column.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffData } from '../../web/src/features/history/components/diff.ts';

const columns = new Map([['colA', 'Absorbance'], ['colB', 'Sample name']]);

test('only the fields that changed, cells by column name', () => {
  const older = { name: 'S1', description: '', is_locked: false, is_archived: false, cells: { colA: '0.4', colB: 'Alpha' } };
  const newer = { name: 'S1', description: '', is_locked: true, is_archived: false, cells: { colA: '0.5', colB: 'Alpha' } };
  assert.deepEqual(diffData(older, newer, columns), [
    { field: 'is_locked', label: 'is_locked', kind: 'changed', before: 'false', after: 'true' },
    { field: 'cells.colA', label: 'Cell Absorbance', kind: 'changed', before: '0.4', after: '0.5' },
  ]);
});

test('added and removed cells; an unknown column keeps its sid', () => {
  const older = { name: 'S1', cells: { colB: 'Alpha' } };
  const newer = { name: 'S1', cells: { colA: '1', colZ: 'z' } };
  assert.deepEqual(diffData(older, newer, columns), [
    { field: 'cells.colB', label: 'Cell Sample name', kind: 'removed', before: 'Alpha', after: '—' },
    { field: 'cells.colA', label: 'Cell Absorbance', kind: 'added', before: '—', after: '1' },
    { field: 'cells.colZ', label: 'Cell colZ', kind: 'added', before: '—', after: 'z' },
  ]);
});

test('identical data: no change', () => {
  const data = { name: 'S1', cells: { colA: '1' } };
  assert.deepEqual(diffData(data, structuredClone(data), columns), []);
});
