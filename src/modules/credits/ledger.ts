// The credit ledger's entries as the API shows them: the organization's own list (its
// Admins) and the instance administrators' (admin routes) read them here.
import { Type } from '@sinclair/typebox';
import { count, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Serializer } from '../../core/resource.js';
import type { PageRequest } from '../../core/pagination.js';
import { Sid, Timestamp } from '../../core/schemas.js';
import { formatMoney, isoTimestamp, personName } from '../../core/sql.js';
import { creditLedger, users } from '../../db/schema.js';

const Entry = Type.Object({
  sid: Sid,
  name: Type.String({ description: 'what the change was for' }),
  amount: Type.String({ description: 'signed formatted amount: "-$0.25" for a debit' }),
  balance_after: Type.String({ description: 'formatted balance after the change' }),
  cell: Type.Union([Sid, Type.Null()]),
  row: Type.Union([Sid, Type.Null()]),
  user: Type.Union([Type.Object({ sid: Sid, name: Type.String() }), Type.Null()], { description: 'who caused it: the writer, or the administrator who granted' }),
  date_created: Timestamp,
});

/** A ledger entry in the name, list and detail shapes. */
export const LedgerShapes = { name: Type.Object({ sid: Sid, name: Type.String() }), list: Entry, detail: Entry };

/** How many entries the organization's ledger holds. */
export async function countLedger(db: Db, orgSid: string): Promise<number> {
  return (await db.select({ n: count() }).from(creditLedger).where(eq(creditLedger.organizationSid, orgSid)))[0].n;
}

/** A page of the organization's ledger, newest first, in a shape; `sid`: only that entry. */
export async function pageLedger(db: Db, orgSid: string, serializer: Serializer, page: Pick<PageRequest, 'limit' | 'offset'>, sid?: string) {
  const found = await db.select({
    sid: creditLedger.sid, reason: creditLedger.reason, amount: creditLedger.amount, balance: creditLedger.balanceAfter,
    cell: creditLedger.cellSid, row: creditLedger.rowSid, user_sid: users.sid,
    user_name: personName(users),
    date_created: isoTimestamp(creditLedger.dateCreated),
  }).from(creditLedger).leftJoin(users, eq(users.sid, creditLedger.userSid))
    .where(sid === undefined ? eq(creditLedger.organizationSid, orgSid) : eq(creditLedger.sid, sid))
    .orderBy(desc(creditLedger.id)).limit(page.limit).offset(page.offset);
  return found.map((e) => serializer === 'name' ? { sid: e.sid, name: e.reason } : {
    sid: e.sid, name: e.reason, amount: formatMoney(e.amount), balance_after: formatMoney(e.balance),
    cell: e.cell, row: e.row, user: e.user_sid ? { sid: e.user_sid, name: e.user_name } : null, date_created: e.date_created,
  });
}
