// The web app's import boundaries (issue 23): `npm run lint` (ESLint, eslint.config.js)
// passes on web/src, and the rule is real: a feature importing another feature, a feature
// importing app/, shared code importing a feature, and an import cycle are each refused.
// The refused snippets are linted as if they were files in web/src (nothing is written).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';
import { PROJECT_ROOT } from '../helpers/env.ts';

const eslint = new ESLint({ cwd: PROJECT_ROOT });

/** The [rule, line] of each problem ESLint finds in `code` as the file `file` (relative to web/src). */
async function problems(file: string, code: string): Promise<Array<[string | null, number]>> {
  const [result] = await eslint.lintText(code, { filePath: path.join(PROJECT_ROOT, 'web/src', file) });
  return result!.messages.map((message) => [message.ruleId, message.line]);
}

describe('the web app lint', () => {
  test('web/src passes: no feature imports another, no import cycle', async () => {
    const results = await eslint.lintFiles(['web/src']);
    assert.ok(results.length > 50, `linted ${results.length} files`);
    const found = results.flatMap((result) =>
      result.messages.map((message) => `${path.relative(PROJECT_ROOT, result.filePath)}:${message.line} ${message.ruleId}: ${message.message}`),
    );
    assert.deepEqual(found, []);
  });

  test('a feature importing another feature is refused; through lib/ it is not', async () => {
    const planted = [
      "import { useLiveGrid } from '../../grid/api/live';",
      "import { useTable } from '../../../lib/api/tables';",
      "import { versionsQuery } from '../api/history';",
      'export const all = [useLiveGrid, useTable, versionsQuery];',
    ].join('\n');
    assert.deepEqual(await problems('features/history/components/planted.tsx', planted), [['import-x/no-restricted-paths', 1]]);
  });

  test('a feature importing app/, and lib/ or components/ importing a feature, are refused; app/ composes features', async () => {
    assert.deepEqual(await problems('features/grid/planted.ts', "export { router } from '../../app/router';"), [['import-x/no-restricted-paths', 1]]);
    assert.deepEqual(await problems('lib/planted.ts', "export { useLiveGrid } from '../features/grid/api/live';"), [['import-x/no-restricted-paths', 1]]);
    assert.deepEqual(await problems('components/planted.tsx', "export { GridPage } from '../features/grid/components/grid-page';"), [
      ['import-x/no-restricted-paths', 1],
    ]);
    const composed = "export { GridPage } from '../features/grid/components/grid-page';\nexport { RunWorkflow } from '../features/workflows/components/run-workflow';";
    assert.deepEqual(await problems('app/planted.tsx', composed), []);
  });

  test('an import cycle is refused', async () => {
    // lib/api/session.ts imports lib/api/client.ts: client importing session closes a loop.
    const client = "import { sessionQuery } from './session';\nexport const again = sessionQuery;";
    assert.deepEqual(await problems('lib/api/client.ts', client), [['import-x/no-cycle', 1]]);
  });
});
