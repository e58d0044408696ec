// The database's functions have one home (issue 23; src/db/function-files.ts): the text of
// each in src/db/functions/<name>.sql, and `npm run db:functions` makes the migrations from
// them. This file proves that the files and the migrations' latest definitions agree, that
// a changed, a new and a re-typed function become a migration that both engines run, and
// that the version hash's format is one: the SQL that writes a version's text
// (records_version_text, as migrated) gives the text and hash of the TypeScript definition
// every check uses (src/modules/versions/chain.ts) and of docs/versions.md (the test's own).
// On a database of its own: in-process PGlite, or a scratch PostgreSQL database.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/env.ts';
import { withScratchDatabase } from '../helpers/scratch-db.ts';
import { versionHash as documentedHash, canonicalJson as documentedJson } from '../helpers/records.ts';
import { versionHash, versionText, type VersionContent } from '../../src/modules/versions/chain.ts';

const FUNCTIONS = path.join(PROJECT_ROOT, 'src', 'db', 'functions');
const MIGRATIONS = path.join(PROJECT_ROOT, 'src', 'db', 'migrations');

/** `npm run db:functions -- …args`: its exit code and what it printed. */
function dbFunctions(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'scripts', 'db-functions.ts'), ...args], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

/** Copies of src/db/functions and src/db/migrations to change. */
function copies(): { functions: string; migrations: string; done: () => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'records-functions-'));
  const functions = path.join(root, 'functions');
  const migrations = path.join(root, 'migrations');
  fs.cpSync(FUNCTIONS, functions, { recursive: true });
  fs.cpSync(MIGRATIONS, migrations, { recursive: true });
  return { functions, migrations, done: () => fs.rmSync(root, { recursive: true, force: true }) };
}

const journalOf = (migrations: string) => JSON.parse(fs.readFileSync(path.join(migrations, 'meta', '_journal.json'), 'utf8')) as {
  entries: Array<{ idx: number; when: number; tag: string }>;
};

describe('the database functions: one file each, the migrations made from them', () => {
  test('every function of the migrations has its file in src/db/functions, holding its latest definition', () => {
    const run = dbFunctions('--check');
    assert.equal(run.out.trim(), 'src/db/functions and the migrations agree');
    assert.equal(run.status, 0);
    const migrated = new Set<string>();
    for (const file of fs.readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql'))) {
      for (const m of fs.readFileSync(path.join(MIGRATIONS, file), 'utf8').matchAll(/^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(\w+)/gim)) migrated.add(m[1]);
    }
    assert.ok(migrated.has('records_append_version') && migrated.has('records_version_text') && migrated.has('records_set_cell'));
    assert.deepEqual(fs.readdirSync(FUNCTIONS).sort(), [...migrated].map((name) => `${name}.sql`).sort());
  });

  test('a function changed in a migration alone, or one without a file, is named and fails the check', () => {
    const dirs = copies();
    try {
      const last = journalOf(dirs.migrations).entries.at(-1)!.tag;
      fs.appendFileSync(path.join(dirs.migrations, `${last}.sql`),
        "\n--> statement-breakpoint\nCREATE OR REPLACE FUNCTION records_row_uid(p_code text, p_number integer) RETURNS text\nLANGUAGE sql IMMUTABLE AS $$ SELECT p_code $$;\n"
        + "--> statement-breakpoint\nCREATE FUNCTION records_stray() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$;\n");
      const run = dbFunctions('--check', '--functions', dirs.functions, '--migrations', dirs.migrations);
      assert.equal(run.status, 1);
      assert.equal(run.out.trim(), `records_row_uid: changed\nrecords_stray: defined in ${last}, no file in src/db/functions`);
      const write = dbFunctions('--functions', dirs.functions, '--migrations', dirs.migrations);
      assert.equal(write.status, 1, 'no migration is written while a function has no file');
      assert.ok(write.out.includes(`functions defined in the migrations have no file in src/db/functions: records_stray (${last})`), write.out);
    } finally {
      dirs.done();
    }
  });

  test('a changed, a new and a re-typed function file become the next migration, which the database runs; then all agree', async () => {
    const dirs = copies();
    try {
      const file = (name: string) => path.join(dirs.functions, `${name}.sql`);
      // Seven digits instead of six (the body only).
      fs.writeFileSync(file('records_row_uid'), fs.readFileSync(file('records_row_uid'), 'utf8')
        .replace('p_number < 1000000', 'p_number < 10000000').replace("lpad(p_number::text, 6, '0')", "lpad(p_number::text, 7, '0')"));
      // A second argument: CREATE OR REPLACE cannot change the arguments, the old one is dropped first.
      fs.writeFileSync(file('records_table_code'), fs.readFileSync(file('records_table_code'), 'utf8')
        .replace('records_table_code(p_name text)', 'records_table_code(p_name text, p_fallback text)').replace("'REC')", 'p_fallback)'));
      // A new function whose SQL body calls the changed one: created after it.
      fs.writeFileSync(file('records_a_uid'), '-- A planted function.\nCREATE OR REPLACE FUNCTION records_a_uid() RETURNS text\nLANGUAGE sql IMMUTABLE AS $$ SELECT records_row_uid(\'PLT\', 42) $$;\n');
      assert.deepEqual(dbFunctions('--check', '--functions', dirs.functions, '--migrations', dirs.migrations),
        { status: 1, out: 'records_a_uid: new\nrecords_row_uid: changed\nrecords_table_code: changed\n' });

      const before = journalOf(dirs.migrations).entries;
      const write = dbFunctions('--functions', dirs.functions, '--migrations', dirs.migrations, '--name', 'planted', '--number', '0099');
      assert.equal(write.status, 0, write.out);
      const migration = path.join(dirs.migrations, '0099_planted.sql');
      assert.equal(write.out, 'records_a_uid: new\nrecords_row_uid: changed\nrecords_table_code: changed\n'
        + `wrote ${path.relative(PROJECT_ROOT, migration)} (and its journal entry and snapshot)\n`);
      const statements = fs.readFileSync(migration, 'utf8').split('--> statement-breakpoint\n');
      assert.deepEqual(statements.map((s) => /^(?:--.*\n)*(\w+ \w+(?: \w+ \w+)? [\w ]*?\w+)\(/.exec(s)?.[1]), [
        'CREATE OR REPLACE FUNCTION records_row_uid', 'CREATE OR REPLACE FUNCTION records_a_uid',
        'DROP FUNCTION IF EXISTS records_table_code', 'CREATE OR REPLACE FUNCTION records_table_code',
      ]);
      assert.ok(statements[0].startsWith('-- The functions of src/db/functions whose text changed (npm run db:functions): records_row_uid, records_a_uid, records_table_code.\n'));
      assert.equal(statements[2], 'DROP FUNCTION IF EXISTS records_table_code(p_name text);\n');
      const after = journalOf(dirs.migrations).entries;
      assert.deepEqual(after.slice(0, -1), before);
      assert.deepEqual({ ...after.at(-1)!, when: 0 }, { idx: before.length, version: '7', when: 0, tag: '0099_planted', breakpoints: true });
      assert.ok(after.at(-1)!.when > before.at(-1)!.when, 'applied after the migrations before it');
      const snapshot = (tag: string) => JSON.parse(fs.readFileSync(path.join(dirs.migrations, 'meta', `${tag}_snapshot.json`), 'utf8'));
      const last = snapshot(before.at(-1)!.tag.slice(0, 4));
      const made = snapshot('0099');
      assert.equal(made.prevId, last.id);
      assert.deepEqual({ ...made, id: '', prevId: '' }, { ...last, id: '', prevId: '' }, 'the schema snapshot is unchanged');

      assert.deepEqual(dbFunctions('--check', '--functions', dirs.functions, '--migrations', dirs.migrations),
        { status: 0, out: 'src/db/functions and the migrations agree\n' });
      assert.deepEqual(dbFunctions('--functions', dirs.functions, '--migrations', dirs.migrations),
        { status: 0, out: 'src/db/functions and the migrations agree: no migration written\n' });

      await withScratchDatabase(async (migrate, run) => {
        await migrate(dirs.migrations);
        const { rows } = await run("SELECT records_row_uid('ABC', 5) AS uid, records_a_uid() AS planted, records_table_code('!!', 'NON') AS code");
        assert.deepEqual(rows, [{ uid: 'ABC-0000005', planted: 'PLT-0000042', code: 'NON' }]);
        const { rows: tableCodes } = await run("SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'records_table_code'");
        assert.deepEqual(tableCodes, [{ n: 1 }], 'the one-argument function is gone');
      });
    } finally {
      dirs.done();
    }
  });
});

/** Versions whose text is hard to write the same way twice: escapes, code-point order of keys, sections, nulls. */
const CONTENTS: VersionContent[] = [
  { row: 'r1', version: 1, previousHash: '', data: { name: 'Specimen', description: '', is_locked: false, is_archived: false, cells: {} }, updated_by: 'u1', date_created: '2026-11-26T10:00:00.000000Z' },
  {
    row: 'rowSidWith"quote', version: 2, previousHash: 'ab'.repeat(32),
    data: {
      name: 'signed "quoted" \\ / ünïcödé ✓ 🧪 \t\u0001\u001f\u007f\u2028 end', description: null, is_locked: true, is_archived: false,
      // Keys in UTF-16 order differ from code-point order: U+FF5E sorts after 😀 in UTF-16, before it by code point.
      cells: { b: 'line\nline\r\n', a: '', Z: '\b\f', 'é': '[{"x":1}]', '😀': 'astral', '～': 'fullwidth', '\ue000': 'private' },
    },
    updated_by: 'user\\sid', date_created: '2026-11-26T10:00:00.123456Z',
  },
  {
    row: 'r3', version: 1000001, previousHash: 'ff'.repeat(32),
    data: {
      name: 'with sections', description: 'd', is_locked: false, is_archived: true, cells: { c2: 'x', c10: 'y' },
      sections: [
        { sid: 's2', name: 'Methods', description: '', order: 0, is_archived: false, data: '{"type":"doc","content":[{"b":1,"a":"ü"}]}' },
        { sid: 's1', name: 'Ünïcode "section"', description: 'tab\there', order: 7, is_archived: true, data: '"just text"' },
      ],
    },
    updated_by: 'u3', date_created: '2026-11-26T23:59:59.999999Z',
  },
];

describe('the version hash: one format, SQL and TypeScript agree', () => {
  test('records_version_text and its SHA-256 equal versionText and versionHash (and docs/versions.md\'s canonical JSON) on every content', async () => {
    await withScratchDatabase(async (migrate, run) => {
      await migrate(MIGRATIONS);
      for (const c of CONTENTS) {
        const { rows } = await run(
          `SELECT records_version_text($1, $2, $3, $4::jsonb, $5, $6) AS text,
                  encode(sha256(convert_to(records_version_text($1, $2, $3, $4::jsonb, $5, $6), 'UTF8')), 'hex') AS hash`,
          [c.row, c.version, c.previousHash, JSON.stringify(c.data), c.updated_by, c.date_created]);
        assert.equal(rows[0].text, versionText(c), `the text of ${c.row}`);
        assert.equal(rows[0].text, documentedJson(c), `docs/versions.md's canonical JSON of ${c.row}`);
        assert.equal(rows[0].hash, versionHash(c));
        assert.equal(rows[0].hash, documentedHash(c));
        // The general canonical JSON in SQL writes the same text.
        const { rows: general } = await run(
          `SELECT records_canonical_json(jsonb_build_object('row', $1::text, 'version', $2::int, 'previousHash', $3::text, 'data', $4::jsonb,
                  'updated_by', $5::text, 'date_created', $6::text)) AS text`,
          [c.row, c.version, c.previousHash, JSON.stringify(c.data), c.updated_by, c.date_created]);
        assert.equal(general[0].text, rows[0].text);
      }
      // Only its six fields are hashed: whatever else a caller holds (an archive line's own hash) is not.
      assert.equal(versionHash({ ...CONTENTS[1], hash: 'x', extra: 1 } as VersionContent), versionHash(CONTENTS[1]));
    });
  });
});
