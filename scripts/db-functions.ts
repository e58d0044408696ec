// npm run db:functions: makes the migration that brings the database's functions to the
// text of src/db/functions/*.sql (src/db/function-files.ts says how), or says they agree.
//
//   npm run db:functions                          the next number, named "functions"
//   npm run db:functions -- --name set_cell_rule --number 0042
//   npm run db:functions -- --check               exit 1 when a file differs, write nothing
//   --functions DIR --migrations DIR              other folders than src/db/functions and src/db/migrations
import { parseArgs } from 'node:util';
import path from 'node:path';
import { FUNCTIONS_DIR, functionDifferences, SOURCE_MIGRATIONS_DIR, writeFunctionsMigration } from '../src/db/function-files.ts';

const { values } = parseArgs({ options: {
  name: { type: 'string' }, number: { type: 'string' }, check: { type: 'boolean' }, functions: { type: 'string' }, migrations: { type: 'string' },
} });
const dir = values.functions ?? FUNCTIONS_DIR;
const migrationsDir = values.migrations ?? SOURCE_MIGRATIONS_DIR;

try {
  const differences = functionDifferences(dir, migrationsDir);
  for (const d of differences) console.log(`${d.name}: ${d.kind === 'no file' ? `defined in ${d.migration}, no file in src/db/functions` : d.kind}`);
  if (values.check) {
    if (!differences.length) console.log('src/db/functions and the migrations agree');
    process.exitCode = differences.length ? 1 : 0;
  } else {
    const written = writeFunctionsMigration({ name: values.name, number: values.number, dir, migrationsDir });
    console.log(written ? `wrote ${path.relative(process.cwd(), written)} (and its journal entry and snapshot)` : 'src/db/functions and the migrations agree: no migration written');
  }
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
}
