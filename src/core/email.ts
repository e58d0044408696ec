// The one way to compare email addresses (issue 21, point 4). Every counter, lookup,
// uniqueness rule and mail rule compares addresses by their key, never by their text and
// never by PostgreSQL's lower() (which depends on the database's locale and maps `İ` to
// `i`, where JavaScript makes it two characters):
//   - the process computes the key of what it is given: normalizeEmail();
//   - the database stores the key of an account's address beside it (users.email_key,
//     unique) and of every proven address (proven_addresses.email), computed here;
//   - for the addresses it holds in other columns (personnel.email, a mail's recipient),
//     SQL computes the key with emailKeySql(). Those columns only ever hold ASCII (the API's
//     Email schema, format "email", refuses anything else), and for ASCII the key is exactly
//     A–Z → a–z, which translate() does the same way in every locale.
import { caseFold } from 'unicode-case-folding';
import { sql, type SQL } from 'drizzle-orm';

/**
 * The key of an address: compatibility normalization (NFKC), Unicode full case folding
 * (CaseFolding.txt, statuses C and F: `ß` → `ss`, `ﬀ` → `ff`, `İ` → `i̇`, `Σ`/`ς` → `σ`), and
 * NFKC again, so the key of a key is itself (Unicode's NFKC_Casefold closure; D146's
 * compatibility caseless match with composed forms). Nothing else is changed: no trimming,
 * no dropping of dots or `+tags` (they are part of an address).
 */
export function normalizeEmail(address: string): string {
  return caseFold(caseFold(address.normalize('NFKC')).normalize('NFKC')).normalize('NFKC');
}

/**
 * The key of an address held by the database (a column, or a value normalizeEmail already
 * gave), as SQL: A–Z to a–z. Exact for what the database holds (ASCII, see above); a key
 * normalizeEmail gave has no A–Z left, so it passes unchanged.
 */
export function emailKeySql(address: SQL | string): SQL {
  return sql`translate(${address}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
}
