// The operator CLI: `npm run cli -- <command> [--flags]`. Prints JSON on stdout (help is
// text, for people); errors as JSON on stderr with a non-zero exit (1: refused or failed,
// 2: bad usage or config). Passwords come from a prompt or standard input, never argv.
import { parseArgs } from 'node:util';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { eq, sql } from 'drizzle-orm';
import { loadConfig, ConfigError, type Config } from './config.js';
import { openDatabase, query, type Database, type Db } from './db/client.js';
import type { Publisher } from './db/after-commit.js';
import { credentials, organizations } from './db/schema.js';
import { ApiError } from './core/errors.js';
import { validationBody } from './core/error-handler.js';
import { isSid } from './core/ids.js';
import { formatMoney, isoTimestamp } from './core/sql.js';
import { SignupBody, ApiKeyBody, Email } from './modules/accounts/schemas.js';
import { OrganizationCreate } from './modules/organizations/schemas.js';
import {
  createUser, createResetTag, findUserByEmail, issueCredential, INVITATION_DAYS,
} from './modules/accounts/service.js';
import { proveAddress } from './modules/accounts/email-proof.js';
import { assertStrongPassword } from './modules/accounts/passwords.js';
import { invitationMail } from './modules/accounts/mails.js';
import { createOrganization } from './modules/organizations/service.js';
import { adjustCredits, creditsOf } from './modules/credits/service.js';
import { enqueueMail } from './mail/outbox.js';
import { countInstanceAdmins, setInstanceAdmin } from './modules/admin/admins.js';
import { currentSettings } from './modules/admin/settings.js';
import { sqlErrorOf } from './core/sql-error.js';

/** The commands, their flags and what they do: the help people read. */
const COMMAND_HELP: Array<{ name: string; flags: string; does: string }> = [
  {
    name: 'create-user',
    flags: '--email <email> [--first-name <name>] [--last-name <name>]',
    does: 'Creates an account that can sign in; its email counts as proven. The password is asked for at a prompt '
      + '(typed twice, not shown), or read from the first line of standard input when that is not a terminal '
      + '(printf \'%s\\n\' "$PASSWORD" | npm run cli -- create-user ...). Prints {sid, email, first_name, last_name}.',
  },
  {
    name: 'prove-email',
    flags: '--email <email>',
    does: 'Marks the sign-in email of the account with that email as proven, as its link would (the account may then do more '
      + 'than prove it). Prints {sid, email, is_email_verified}.',
  },
  {
    name: 'create-organization',
    flags: '--name <name> --admin-email <email> [--description <text>] [--credits <amount>]',
    does: 'Creates an organization with that account as its Admin. An email without an account gets one (proven, as every '
      + 'account the CLI makes) without a password, and an invitation (sent by the server\'s mail worker) to choose one; an '
      + 'existing account whose email is not proved yet gets the invitation too, and no access until it accepts. Credits default to INITIAL_CREDITS (or the value an administrator set in its place).',
  },
  {
    name: 'credits',
    flags: '--organization <sid> (--set <amount> | --add <amount>)',
    does: 'Sets or adds to an organization\'s credits (exact decimals like 25.00; --add may be negative) and records it in the '
      + 'credit ledger, in one transaction. Credits never go below zero.',
  },
  {
    name: 'instance-admin',
    flags: '--grant <email> | --revoke <email>',
    does: 'Makes the account with that email an administrator of the instance (--grant), or no longer one (--revoke). '
      + 'Administrators grant organizations credits, disable accounts and change settings in the app (Administration) or '
      + 'through /admin/. The first account of a fresh instance becomes one when it proves its email, unless an administrator '
      + 'exists by then: name one here before opening an instance to the internet. Prints {sid, email, is_instance_admin, administrators}.',
  },
  {
    name: 'create-api-key',
    flags: '--email <email> --name <name>',
    does: 'Creates an API key for the account and prints it, once: {sid, name, key, date_created, user}. '
      + 'Send it as "Authorization: Bearer <key>".',
  },
  { name: 'openapi', flags: '', does: 'Prints the OpenAPI document of the API (needs no database).' },
  {
    name: 'verify-archive',
    flags: '<file.eln>',
    does: 'Re-verifies an .eln archive of a project offline, from the archive alone (needs no database or settings): every row\'s '
      + 'version chain re-hashed and linked, its head against the row\'s cells, every file against its SHA-256. Prints '
      + '{archive, rows, versions, files, is_valid, problems: [{row, name, version, problem}]}; exits 1 when a problem is found.',
  },
  { name: 'help', flags: '', does: 'Prints this help.' },
];

/** The help, for people: what the CLI is, where it works, each command. */
function helpText(): string {
  const commands = COMMAND_HELP.map(({ name, flags, does }) => {
    const wrapped = does.match(/.{1,76}(\s|$)/g)!.map((line) => `      ${line.trim()}`).join('\n');
    return `  ${name}${flags ? ` ${flags}` : ''}\n${wrapped}`;
  }).join('\n\n');
  return `The Records Service operator CLI.

Usage: npm run cli -- <command> [--flag value ...]     (or: node dist/cli.js <command> ...)

Commands:
${commands}

Output: each command prints JSON on standard output. On a mistake or a refusal it prints
{"error": ...} on standard error and exits with 1 (refused or failed) or 2 (bad usage or
configuration). Passwords are never taken as arguments: those show in ps and in shell history.

Database: the same as the server's: DATABASE_URL (PostgreSQL), or the embedded PGlite
database under DATA_DIR (default ./data). The embedded database admits one process at a
time: stop the server before using the CLI on it. Pending migrations are applied first.
`;
}

/** What main() answers for `help`: the text is printed as it is, not as JSON. */
const HELP_REQUESTED = Symbol('help');

/** A refusal the CLI reports: exit status 1 (or 2 for bad usage). */
class CliError extends Error {
  constructor(message: string, readonly exitCode = 1, readonly fields?: Record<string, string[]>) {
    super(message);
  }
}

const usage = (message: string) => new CliError(message, 2);

type Flags = Record<string, string>;

/**
 * `--name value` and `--name=value` flags, parsed strictly by node:util parseArgs: an
 * unknown flag, a flag without its value, a flag given twice or a stray argument is a
 * usage error that says what is wrong.
 */
function parseFlags(args: string[], allowed: string[]): Flags {
  if (args.some((arg) => arg === '--password' || arg.startsWith('--password='))) {
    throw usage('passwords are not taken on the command line (they show in ps and in shell history): '
      + 'leave out --password and type it at the prompt, or pipe it on standard input');
  }
  // A value may start with one dash (--add -5.50): parseArgs would take it for a flag.
  const joined: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const next = args[i + 1];
    if (/^--[a-z][a-z-]*$/.test(args[i]!) && next !== undefined && /^-(?!-)/.test(next)) {
      joined.push(`${args[i]}=${next}`);
      i += 1;
    } else joined.push(args[i]!);
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joined,
      options: Object.fromEntries(allowed.map((flag) => [flag, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (err) {
    const { code, message } = err as { code?: string; message: string };
    const flag = /'(-[^']*)'/.exec(message)?.[1]?.split(' ')[0];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw usage(`unknown flag ${flag ?? message}; this command takes ${allowed.map((f) => `--${f}`).join(', ') || 'no flags'}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw usage(`${flag ?? 'a flag'} needs a value`);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      throw usage(`unexpected argument "${/'([^']*)'/.exec(message)?.[1] ?? message}"; flags look like --name value`);
    }
    throw usage(message);
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw usage(`--${token.name} is given twice`);
    seen.add(token.name);
    if (token.value === undefined || (token.inlineValue === false && token.value.startsWith('--'))) throw usage(`--${token.name} needs a value`);
  }
  return parsed.values as Flags;
}

/** Reads a line from the terminal without showing what is typed. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    // Echo off before the prompt shows: a password typed as soon as it shows is never echoed.
    stdin.setRawMode(true);
    process.stderr.write(question);
    stdin.resume();
    stdin.setEncoding('utf8');
    let typed = '';
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          done();
          resolve(typed);
          return;
        }
        if (char === '\u0003') {
          done();
          reject(new CliError('cancelled', 1));
          return;
        }
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}

/** The first line of standard input (a pipe or a file), without its line end. */
async function firstLineOfStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/** A new password: asked twice at a terminal, else read from standard input. */
async function readPassword(email: string): Promise<string> {
  if (process.stdin.isTTY) {
    const first = await promptHidden(`Password for ${email}: `);
    const again = await promptHidden('The same password again: ');
    if (first !== again) throw new CliError('the two passwords differ; nothing was created', 2);
    return first;
  }
  const password = await firstLineOfStdin();
  if (!password) {
    throw new CliError('no password: type it at the prompt (run the command in a terminal) or give it on the first line of standard input', 2);
  }
  return password;
}

function required(flags: Flags, ...names: string[]) {
  const missing = names.filter((n) => flags[n] === undefined);
  if (missing.length) throw usage(`missing ${missing.map((n) => `--${n}`).join(', ')}`);
}

const ajv = new Ajv({ allErrors: true, coerceTypes: false, strict: false });
addFormats.default(ajv);

/** Validates input with the API's own request schema: the CLI refuses what the API refuses. */
function validate(schema: TSchema, value: unknown, names: Record<string, string> = {}) {
  const check = ajv.compile(schema);
  if (check(value)) return;
  const fields = validationBody(check.errors as never, 'body');
  const shown = Object.fromEntries(Object.entries(fields).map(([field, messages]) => [`--${names[field] ?? field.replace(/_/g, '-')}`, messages]));
  throw new CliError('invalid input', 2, shown);
}

// An amount of money: at most 12 digits before the point and 2 after; --add may be negative.
const AMOUNT = /^\d{1,12}(\.\d{1,2})?$/;
const SIGNED_AMOUNT = /^[+-]?\d{1,12}(\.\d{1,2})?$/;

/** The SQLSTATE of a database error, wherever the driver wrapped it. */
const sqlState = (error: unknown): string | undefined => sqlErrorOf(error)?.code;

/**
 * A command: its flags, a check of its input that needs no database (so bad usage fails
 * fast), and the work, given the database.
 */
interface Command<I> {
  flags: string[];
  check(flags: Flags, config: Config): I | Promise<I>;
  run(db: Db, input: I, config: Config): Promise<unknown>;
}

const createUserCommand: Command<{ email: string; password: string; first_name: string; last_name: string }> = {
  flags: ['email', 'first-name', 'last-name'],
  async check(flags) {
    required(flags, 'email');
    const input = { email: flags.email!, password: '', first_name: flags['first-name'] ?? '', last_name: flags['last-name'] ?? '' };
    validate(SignupBody, { ...input, password: 'x'.repeat(64) });
    input.password = await readPassword(input.email);
    validate(SignupBody, input);
    await assertStrongPassword(input.password, 'password', [input.email, input.first_name, input.last_name]).catch((err: unknown) => {
      if (err instanceof ApiError && typeof err.body === 'object' && !('detail' in err.body)) throw new CliError('invalid input', 2, err.body);
      throw err;
    });
    return input;
  },
  run: (db, input) => db.transaction((tx) => createUser(tx, input, { proven: true })),
};

const proveEmailCommand: Command<{ email: string }> = {
  flags: ['email'],
  check(flags) {
    required(flags, 'email');
    return { email: flags.email };
  },
  run: (db, input) => db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, input.email);
    if (!user) throw new CliError(`no account with email ${input.email}`);
    await proveAddress(tx, user.sid, user.email);
    return { sid: user.sid, email: user.email, is_email_verified: true };
  }),
};

const createOrganizationCommand: Command<{ name: string; description?: string; email: string; credits: string }> = {
  flags: ['name', 'admin-email', 'description', 'credits'],
  check(flags, config) {
    required(flags, 'name', 'admin-email');
    validate(OrganizationCreate, { name: flags.name, ...(flags.description !== undefined ? { description: flags.description } : {}) });
    validate(Email, flags['admin-email'], { non_field_errors: 'admin-email' });
    const credits = flags.credits ?? '';
    if (credits !== '' && !AMOUNT.test(credits)) throw new CliError('invalid input', 2, { '--credits': ['Enter an amount like 100.00 (at most 2 decimals, not negative).'] });
    return { name: flags.name, description: flags.description, email: flags['admin-email'], credits };
  },
  run: (db, input, config) => db.transaction(async (tx) => {
    // No --credits: INITIAL_CREDITS, or the value an instance administrator set in its place.
    const credits = input.credits || (await currentSettings({ db: tx, config })).initial_credits;
    let user = await findUserByEmail(tx, input.email);
    if (!user) {
      await createUser(tx, { email: input.email, password: null }, { proven: true });
      user = (await findUserByEmail(tx, input.email))!;
    }
    const sid = await createOrganization(tx, {
      name: input.name,
      description: input.description,
      credits,
      admin: { sid: user.sid, email: user.email, firstName: user.firstName, lastName: user.lastName },
    });
    const invite = !user.passwordHash || !user.emailVerifiedAt;
    if (invite) {
      // Queued in this transaction; the server's mail worker sends it.
      const tag = await createResetTag(tx, user.sid, INVITATION_DAYS * 24 * 60);
      await enqueueMail(tx, invitationMail(config.mailBaseUrl, user.email, input.name, null, { tag, days: INVITATION_DAYS }));
    }
    const [org] = await tx.select({ sid: organizations.sid, name: organizations.name, description: organizations.description, credits: creditsOf(organizations.sid) })
      .from(organizations).where(eq(organizations.sid, sid));
    return {
      sid: org.sid,
      name: org.name,
      description: org.description,
      credits: formatMoney(org.credits),
      admin: { sid: user.sid, email: user.email, first_name: user.firstName, last_name: user.lastName },
      invitation_sent: invite,
    };
  }),
};

const creditsCommand: Command<{ orgSid: string; mode: 'set' | 'add'; amount: string }> = {
  flags: ['organization', 'set', 'add'],
  check(flags) {
    required(flags, 'organization');
    if ((flags.set === undefined) === (flags.add === undefined)) throw usage('give exactly one of --set <amount> and --add <amount>');
    const mode = flags.set !== undefined ? 'set' : 'add';
    const given = flags.set ?? flags.add;
    if (!(mode === 'set' ? AMOUNT : SIGNED_AMOUNT).test(given)) {
      throw new CliError('invalid input', 2, {
        [`--${mode}`]: [mode === 'set' ? 'Enter an amount like 100.00 (at most 2 decimals, not negative).' : 'Enter an amount like 25.00 or -5.50 (at most 2 decimals).'],
      });
    }
    if (!isSid(flags.organization)) throw new CliError(`no organization with sid ${flags.organization}`);
    return { orgSid: flags.organization, mode, amount: given.replace(/^\+/, '') };
  },
  async run(db, { orgSid, mode, amount }) {
    const [before] = await query<{ credits: string; name: string }>(db, sql`SELECT ${creditsOf(orgSid)} AS credits, name FROM organizations WHERE sid = ${orgSid}`);
    if (!before) throw new CliError(`no organization with sid ${orgSid}`);
    let balance: string | undefined;
    try {
      balance = await adjustCredits(db, orgSid, mode, amount);
    } catch (err) {
      const state = sqlState(err);
      if (state === '23514') throw new CliError(`credits cannot go below zero (the balance is ${formatMoney(before.credits)})`);
      if (state === '22003') throw new CliError('the balance would exceed 999999999999.99');
      throw err;
    }
    if (balance === undefined) throw new CliError(`no organization with sid ${orgSid}`);
    return { sid: orgSid, name: before.name, credits: formatMoney(balance), balance };
  },
};

const instanceAdminCommand: Command<{ email: string; admin: boolean }> = {
  flags: ['grant', 'revoke'],
  check(flags) {
    if ((flags.grant === undefined) === (flags.revoke === undefined)) throw usage('give exactly one of --grant <email> and --revoke <email>');
    return { email: flags.grant ?? flags.revoke, admin: flags.grant !== undefined };
  },
  run: (db, input) => db.transaction(async (tx) => {
    const changed = await setInstanceAdmin(tx, input.email, input.admin);
    if (!changed) throw new CliError(`no account with email ${input.email}`);
    return { ...changed, administrators: await countInstanceAdmins(tx) };
  }),
};

const createApiKeyCommand: Command<{ email: string; name: string }> = {
  flags: ['email', 'name'],
  check(flags) {
    required(flags, 'email', 'name');
    validate(ApiKeyBody, { name: flags.name });
    return { email: flags.email, name: flags.name };
  },
  async run(db, input) {
    const user = await findUserByEmail(db, input.email);
    if (!user) throw new CliError(`no account with email ${input.email}`);
    const { secret, row } = await issueCredential(db, user.sid, 'apikey', input.name);
    const [created] = await db.select({ date_created: isoTimestamp(credentials.dateCreated) }).from(credentials).where(eq(credentials.sid, row.sid));
    return { sid: row.sid, name: row.name, key: secret, date_created: created.date_created, user: { sid: user.sid, email: user.email } };
  },
};

/** The OpenAPI document, from the same buildApp as the server, without a database. */
async function openapi(config: Config) {
  const { buildApp } = await import('./app.js');
  const noDatabase = new Proxy({}, { get: () => { throw new Error('the openapi command does not use the database'); } });
  const database: Database = {
    kind: 'pglite', db: noDatabase as Db, pool: null, migrate: async () => {}, close: async () => {}, publisher: noDatabase as Publisher,
  };
  const { app } = await buildApp({ config: { ...config, databaseUrl: null, logLevel: 'silent' }, database, workers: false });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
  }
}

/** verify-archive <file>: the report, with exit code 1 when the archive is not intact. */
async function verifyArchiveCommand(args: string[]) {
  if (args.length !== 1 || args[0].startsWith('--')) throw usage('verify-archive takes one argument: the .eln file');
  const { verifyArchive } = await import('./modules/exports/eln-verify.js');
  let report;
  try {
    report = await verifyArchive(args[0]);
  } catch (err) {
    throw new CliError(`${args[0]} cannot be read as a zip archive: ${(err as Error).message}`);
  }
  if (!report.is_valid) process.exitCode = 1;
  return report;
}

const COMMANDS: Record<string, Command<any>> = {
  'create-user': createUserCommand,
  'prove-email': proveEmailCommand,
  'create-organization': createOrganizationCommand,
  credits: creditsCommand,
  'create-api-key': createApiKeyCommand,
  'instance-admin': instanceAdminCommand,
};

async function main(argv: string[]): Promise<unknown> {
  const [name = 'help', ...rest] = argv;
  if (['help', '--help', '-h'].includes(name)) return HELP_REQUESTED;
  if (name === 'verify-archive') return verifyArchiveCommand(rest);
  if (name !== 'openapi' && !(name in COMMANDS)) throw usage(`unknown command "${name}"; try: npm run cli -- help`);
  const flags = parseFlags(rest, name === 'openapi' ? [] : COMMANDS[name].flags);
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
  if (name === 'openapi') return openapi(config);

  const command = COMMANDS[name];
  const input = await command.check(flags, config);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, statementTimeoutSeconds: config.statementTimeoutSeconds, poolSize: 2 });
  try {
    await database.migrate();
    return await command.run(database.db, input, config);
  } finally {
    await database.close();
  }
}

// A reader that stops early (`| head`) is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then(
  (result) => {
    process.stdout.write(result === HELP_REQUESTED ? helpText() : `${JSON.stringify(result, null, 2)}\n`);
  },
  (err: unknown) => {
    let body: Record<string, unknown>;
    let code = 1;
    if (err instanceof CliError) {
      body = { error: err.message, ...(err.fields ? { fields: err.fields } : {}), ...(err.exitCode === 2 ? { help: 'npm run cli -- help' } : {}) };
      code = err.exitCode;
    } else if (err instanceof ApiError) {
      // A service refused (a taken email …): its field errors or detail.
      body = typeof err.body === 'string' ? { error: err.body }
        : 'detail' in err.body ? { error: err.body.detail }
          : { error: 'invalid input', fields: Object.fromEntries(Object.entries(err.body).map(([k, v]) => [`--${k.replace(/_/g, '-')}`, v])) };
    } else {
      body = { error: (err as Error)?.message ?? String(err) };
    }
    process.stderr.write(`${JSON.stringify(body)}\n`);
    process.exitCode = code;
  },
);
