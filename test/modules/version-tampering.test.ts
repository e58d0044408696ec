// A version changed behind the API's back (design: Versions; docs/versions.md "How
// versions are checked"): its data, its hash and the link after it, a deleted version, its
// author; the version list reads is_valid false where the chain breaks and the verify
// endpoint names the first invalid version. A commit message written directly stays valid
// (it is outside the hash).
//
// PostgreSQL: the data is made through the harness's server and changed with `pg`.
// PGlite (in-process in the server): this file starts its own server on a fresh DATA_DIR,
// makes the data, stops the server, changes DATA_DIR/pgdata with PGlite, and starts the
// server again on the same folder.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BASE_URL, DATA_DIR, DB_KIND } from '../helpers/env.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { behindTheApi, type Runner } from '../helpers/behind.ts';
import {
  assertIntactChain, listVersions, newSmallWorkspaceAt, patchCell, postCell, recomputeHash, recordPaths, verifyRow, type SmallWorkspace,
} from '../helpers/records.ts';
import type { Api } from '../helpers/http.ts';

let server: RunningServer | null = null;
let dataDir = '';
let ws: SmallWorkspace;

before(async () => {
  if (DB_KIND === 'pglite') {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-tamper-'));
    server = await startServer({ databaseUrl: null, dataDir });
  }
  ws = await newSmallWorkspaceAt(server ?? { baseUrl: BASE_URL, dataDir: DATA_DIR }, 'tamper');
});

after(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `change` with direct SQL access to the database behind the API, then returns the caller to use afterwards. */
async function changeBehindTheApi(change: (run: Runner) => Promise<void>): Promise<Api> {
  server = await behindTheApi(server, change);
  return ws.api.at(server?.baseUrl ?? BASE_URL);
}

/** A row with `count` versions: created, a cell, then PATCHes of it. */
async function rowWithVersions(name: string, count: number) {
  const api = ws.api.at(server?.baseUrl ?? BASE_URL);
  const row = expectStatus(await api.post(recordPaths.rowList(ws.org.sid, 'detail', { table__sid: ws.table.sid, project__sid: ws.project.sid }), { name }), 201).json;
  if (count > 1) {
    const cell = expectStatus(await postCell(api, ws.org.sid, row.sid, ws.columns[0].sid, `${name} 2`), 201).json;
    for (let v = 3; v <= count; v += 1) expectStatus(await patchCell(api, cell.sid, `${name} ${v}`), 200);
  }
  const versions = await listVersions(api, ws.org.sid, row.sid);
  assert.equal(versions.length, count);
  assertIntactChain(versions, `${name} before tampering`);
  return { row, versions };
}

describe('versions changed directly in the database', () => {
  test('read is_valid: false where the chain breaks, and the verify endpoint names the first invalid version', async () => {
    const edited = await rowWithVersions('Edited data', 5);
    const forged = await rowWithVersions('Forged hash', 4);
    const deleted = await rowWithVersions('Deleted version', 4);
    const reattributed = await rowWithVersions('Other author', 3);
    const annotated = await rowWithVersions('Commit only', 3);
    const untouched = await rowWithVersions('Untouched', 3);
    const column = ws.columns[0].sid;

    // A forger who recomputes the hash of the version they changed still breaks the next link.
    const v2 = forged.versions[1];
    const forgedData = { ...v2.data, cells: { [column]: 'forged' } };
    const forgedHash = recomputeHash(forged.row.sid, { ...v2, data: forgedData }, ws.user.sid);

    const api = await changeBehindTheApi(async (run) => {
      const changed = async (text: string, params: unknown[]) => {
        const result = await run(text, params);
        assert.equal(result.rows.length, 1, `one version changed by: ${text}`);
      };
      await changed(`UPDATE versions SET data = jsonb_set(data, ARRAY['cells', $2::text], to_jsonb($3::text)) WHERE row_sid = $1 AND version = 3 RETURNING sid`,
        [edited.row.sid, column, 'changed behind the API']);
      await changed('UPDATE versions SET data = $2::jsonb, hash = $3 WHERE row_sid = $1 AND version = 2 RETURNING sid',
        [forged.row.sid, JSON.stringify(forgedData), forgedHash]);
      await changed('DELETE FROM versions WHERE row_sid = $1 AND version = 2 RETURNING sid', [deleted.row.sid]);
      await changed("UPDATE versions SET updated_by = 'AAAAAAAAAAAAAAAA' WHERE row_sid = $1 AND version = 2 RETURNING sid", [reattributed.row.sid]);
      await changed("UPDATE versions SET commit = 'written behind the API' WHERE row_sid = $1 AND version = 2 RETURNING sid", [annotated.row.sid]);
    });

    const validity = async (rowSid: string) => (await listVersions(api, ws.org.sid, rowSid, 'list')).map((v) => [v.version, v.is_valid]);
    const report = async (rowSid: string) => {
      const r = await verifyRow(api, rowSid);
      return { is_valid: r.is_valid, first_invalid_version: r.first_invalid_version, problems: r.problems, versions: r.versions, head_version: r.head_version };
    };

    // The edited version itself; the next one still links to its stored hash.
    assert.deepEqual(await validity(edited.row.sid), [[1, true], [2, true], [3, false], [4, true], [5, true]], 'edited data');
    assert.deepEqual(await report(edited.row.sid), {
      is_valid: false, first_invalid_version: 3, versions: 5, head_version: 5,
      problems: [{ version: 3, problem: 'the hash does not match the stored content' }],
    });
    const shown = (await listVersions(api, ws.org.sid, edited.row.sid, 'detail'))[2];
    assert.equal(shown.data.cells[column], 'changed behind the API', 'the API shows what is stored, flagged as invalid');
    assert.equal(shown.is_valid, false, 'in the detail list shape too');

    // A consistent forgery of version 2 breaks version 3's link.
    assert.deepEqual(await validity(forged.row.sid), [[1, true], [2, true], [3, false], [4, true]], 'forged hash');
    assert.deepEqual(await report(forged.row.sid), {
      is_valid: false, first_invalid_version: 3, versions: 4, head_version: 4,
      problems: [{ version: 3, problem: 'previousHash does not match the hash of the version before' }],
    });

    // A deleted version: a gap, and the version after it links to nothing.
    assert.deepEqual(await validity(deleted.row.sid), [[1, true], [3, false], [4, true]], 'deleted version');
    assert.deepEqual(await report(deleted.row.sid), {
      is_valid: false, first_invalid_version: 2, versions: 3, head_version: 4,
      problems: [
        { version: 2, problem: 'version 2 is missing (found 3 next)' },
        { version: 3, problem: 'previousHash does not match the hash of the version before' },
      ],
    });

    // Another author written in: the hash covers updated_by.
    assert.deepEqual(await validity(reattributed.row.sid), [[1, true], [2, false], [3, true]], 'another author');
    assert.equal((await report(reattributed.row.sid)).first_invalid_version, 2);

    // The commit message is outside the hash; untouched rows stay valid.
    const commented = await listVersions(api, ws.org.sid, annotated.row.sid, 'detail');
    assert.equal(commented[1].commit, 'written behind the API');
    assertIntactChain(commented, 'a commit written directly');
    assert.equal((await report(annotated.row.sid)).is_valid, true);
    assertIntactChain(await listVersions(api, ws.org.sid, untouched.row.sid, 'detail'), 'untouched');
    assert.deepEqual(await report(untouched.row.sid), { is_valid: true, first_invalid_version: null, problems: [], versions: 3, head_version: 3 });
  });
});
