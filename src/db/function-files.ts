// The database's functions have one home (issue 23; immich's schema/functions.ts is the
// model): src/db/functions/<name>.sql holds the current text of each, a comment saying why
// and its CREATE OR REPLACE FUNCTION statement. Migrations are made from those files
// (`npm run db:functions`, scripts/db-functions.ts): a file whose definition differs from
// the latest one in the migrations gets a new migration holding it. A test
// (test/modules/db-functions.test.ts) fails when the two disagree, so a function is never
// changed in a migration alone. Triggers (which tables fire which function) stay in the
// migrations: they are DDL of their tables.
//
// Not used by the running service: the migrations are what a database runs.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The source folder's function files (src/db/functions, also when run from dist/). */
export const FUNCTIONS_DIR = path.join(HERE, '..', '..', 'src', 'db', 'functions');
/** The source folder's migrations. */
export const SOURCE_MIGRATIONS_DIR = path.join(HERE, '..', '..', 'src', 'db', 'migrations');

/** One CREATE FUNCTION statement: the function's name, its statement (normalized) and where it starts and ends in its text. */
export interface FunctionDefinition {
  name: string;
  statement: string;
  start: number;
  end: number;
}

const CREATE = /\bCREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?:public\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\(/gi;

/**
 * The same statement whatever the spelling of its head and line ends: CREATE FUNCTION and
 * CREATE OR REPLACE FUNCTION compare equal (a file always says OR REPLACE: it is run again
 * whenever it changes), trailing spaces of lines are not compared.
 */
export function normalizeStatement(statement: string): string {
  return statement.replace(/\r\n?/g, '\n').replace(/[ \t]+$/gm, '').trim()
    .replace(/^CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?:public\.)?/i, 'CREATE OR REPLACE FUNCTION ');
}

/** The CREATE FUNCTION statements of a SQL text, in order; a body is read to its closing dollar quote. */
export function definitionsIn(sql: string): FunctionDefinition[] {
  const found: FunctionDefinition[] = [];
  for (const match of sql.matchAll(CREATE)) {
    const start = match.index!;
    // Skip a statement quoted in a comment.
    const lineStart = sql.lastIndexOf('\n', start) + 1;
    if (sql.slice(lineStart, start).includes('--')) continue;
    const quote = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/g;
    quote.lastIndex = start;
    const open = quote.exec(sql);
    if (!open) throw new Error(`the function ${match[1]} has no dollar-quoted body`);
    const close = sql.indexOf(open[0], open.index + open[0].length);
    const semicolon = close < 0 ? -1 : sql.indexOf(';', close + open[0].length);
    if (semicolon < 0) throw new Error(`the body of the function ${match[1]} does not end`);
    found.push({ name: match[1].toLowerCase(), statement: normalizeStatement(sql.slice(start, semicolon + 1)), start, end: semicolon + 1 });
  }
  return found;
}

/** A function's file: its name, its whole text (comment and statement) and its statement. */
export interface FunctionFile {
  name: string;
  file: string;
  text: string;
  statement: string;
}

/** Every src/db/functions/*.sql, by function name; a file holds exactly the function it is named after. */
export function readFunctionFiles(dir = FUNCTIONS_DIR): Map<string, FunctionFile> {
  const files = new Map<string, FunctionFile>();
  for (const entry of fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
    const file = path.join(dir, entry);
    const text = fs.readFileSync(file, 'utf8');
    const definitions = definitionsIn(text);
    const name = entry.slice(0, -'.sql'.length);
    if (definitions.length !== 1 || definitions[0].name !== name) {
      throw new Error(`${entry}: a function file holds one CREATE OR REPLACE FUNCTION ${name}(…) statement, found ${definitions.map((d) => d.name).join(', ') || 'none'}`);
    }
    if (text.slice(definitions[0].end).trim()) throw new Error(`${entry}: nothing may follow the function's statement`);
    files.set(name, { name, file, text: `${text.replace(/\r\n?/g, '\n').trimEnd()}\n`, statement: definitions[0].statement });
  }
  return files;
}

interface Journal {
  entries: Array<{ idx: number; version: string; when: number; tag: string; breakpoints: boolean }>;
}

function readJournal(migrationsDir: string): Journal {
  return JSON.parse(fs.readFileSync(path.join(migrationsDir, 'meta', '_journal.json'), 'utf8')) as Journal;
}

/** The latest definition of each function in the migrations, in journal order, with the migration that holds it. */
export function latestDefinitions(migrationsDir = SOURCE_MIGRATIONS_DIR): Map<string, { statement: string; migration: string }> {
  const latest = new Map<string, { statement: string; migration: string }>();
  for (const { tag } of readJournal(migrationsDir).entries) {
    for (const d of definitionsIn(fs.readFileSync(path.join(migrationsDir, `${tag}.sql`), 'utf8'))) {
      latest.set(d.name, { statement: d.statement, migration: tag });
    }
  }
  return latest;
}

/** What differs between the files and the migrations: a file changed or new, or a function of the migrations without a file. */
export interface FunctionDifference {
  name: string;
  kind: 'changed' | 'new' | 'no file';
  /** The migration holding the latest definition (changed, no file). */
  migration?: string;
}

/** The differences between src/db/functions and the migrations' latest definitions, by name. */
export function functionDifferences(dir = FUNCTIONS_DIR, migrationsDir = SOURCE_MIGRATIONS_DIR): FunctionDifference[] {
  const files = readFunctionFiles(dir);
  const latest = latestDefinitions(migrationsDir);
  const differences: FunctionDifference[] = [];
  for (const name of [...new Set([...files.keys(), ...latest.keys()])].sort()) {
    const file = files.get(name);
    const migrated = latest.get(name);
    if (!file) differences.push({ name, kind: 'no file', migration: migrated!.migration });
    else if (!migrated) differences.push({ name, kind: 'new' });
    else if (file.statement !== migrated.statement) differences.push({ name, kind: 'changed', migration: migrated.migration });
  }
  return differences;
}

/** The argument list and return type of a CREATE FUNCTION statement: CREATE OR REPLACE cannot change them. */
function signature(statement: string): { args: string; returns: string } {
  const open = statement.indexOf('(');
  let depth = 0;
  let close = open;
  for (; close < statement.length; close += 1) {
    if (statement[close] === '(') depth += 1;
    else if (statement[close] === ')' && (depth -= 1) === 0) break;
  }
  const args = statement.slice(open + 1, close);
  const returns = /^\s*RETURNS\s+([\s\S]*?)\s+(?:LANGUAGE|AS|IMMUTABLE|STABLE|VOLATILE|STRICT)\b/i.exec(statement.slice(close + 1))?.[1] ?? '';
  const flat = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  return { args: flat(args), returns: flat(returns) };
}

/** Orders functions so that one a SQL-language body calls is created before it (a SQL body is checked when created). */
function inCreationOrder(names: string[], statements: Map<string, string>): string[] {
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (ordered.includes(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const other of names) if (other !== name && new RegExp(`\\b${other}\\s*\\(`).test(statements.get(name)!)) visit(other);
    visiting.delete(name);
    ordered.push(name);
  };
  for (const name of [...names].sort()) visit(name);
  return ordered;
}

/** The migration text that brings the migrations' functions to the files' text: null when nothing differs. */
export function migrationFor(dir = FUNCTIONS_DIR, migrationsDir = SOURCE_MIGRATIONS_DIR): { sql: string; functions: string[] } | null {
  const differences = functionDifferences(dir, migrationsDir);
  const orphans = differences.filter((d) => d.kind === 'no file');
  if (orphans.length) {
    throw new Error(`functions defined in the migrations have no file in src/db/functions: ${orphans.map((d) => `${d.name} (${d.migration})`).join(', ')}`);
  }
  if (!differences.length) return null;
  const files = readFunctionFiles(dir);
  const latest = latestDefinitions(migrationsDir);
  const names = inCreationOrder(differences.map((d) => d.name), new Map(differences.map((d) => [d.name, files.get(d.name)!.statement])));
  const statements: string[] = [];
  for (const name of names) {
    const before = latest.get(name);
    if (before) {
      const was = signature(before.statement);
      const now = signature(files.get(name)!.statement);
      // Its arguments or return type changed: the old function goes first (a trigger using it must be dropped with it, by hand).
      if (was.args !== now.args || was.returns !== now.returns) statements.push(`DROP FUNCTION IF EXISTS ${name}(${was.args});`);
    }
    statements.push(files.get(name)!.text.trimEnd());
  }
  return { sql: `${statements.join('\n--> statement-breakpoint\n')}\n`, functions: names };
}

/**
 * Writes the migration of migrationFor() as the next one of the journal (number: the one
 * after the highest, or `number`), with a copy of the latest schema snapshot (drizzle-kit
 * compares the schema against it; functions are not in it). Returns the new file, or null
 * when the files and the migrations agree.
 */
export function writeFunctionsMigration(options: { name?: string; number?: string; dir?: string; migrationsDir?: string } = {}): string | null {
  const dir = options.dir ?? FUNCTIONS_DIR;
  const migrationsDir = options.migrationsDir ?? SOURCE_MIGRATIONS_DIR;
  const made = migrationFor(dir, migrationsDir);
  if (!made) return null;
  const journal = readJournal(migrationsDir);
  const last = journal.entries[journal.entries.length - 1];
  const highest = Math.max(...journal.entries.map((e) => Number(e.tag.slice(0, 4))));
  const number = options.number ?? String(highest + 1).padStart(4, '0');
  if (!/^\d{4}$/.test(number) || Number(number) <= highest) throw new Error(`the migration's number must be four digits above ${highest}: ${number}`);
  const name = (options.name ?? 'functions').replace(/[^a-z0-9_]+/gi, '_').toLowerCase();
  const tag = `${number}_${name}`;
  const header = `-- The functions of src/db/functions whose text changed (npm run db:functions): ${made.functions.join(', ')}.\n`;
  fs.writeFileSync(path.join(migrationsDir, `${tag}.sql`), header + made.sql);
  const snapshots = path.join(migrationsDir, 'meta');
  const previous = JSON.parse(fs.readFileSync(path.join(snapshots, `${last.tag.slice(0, 4)}_snapshot.json`), 'utf8')) as { id: string; prevId: string };
  fs.writeFileSync(path.join(snapshots, `${number}_snapshot.json`), JSON.stringify({ ...previous, id: randomUUID(), prevId: previous.id }, null, 2));
  journal.entries.push({ idx: journal.entries.length, version: last.version, when: Math.max(Date.now(), last.when + 1), tag, breakpoints: true });
  fs.writeFileSync(path.join(snapshots, '_journal.json'), JSON.stringify(journal, null, 2));
  return path.join(migrationsDir, `${tag}.sql`);
}
