// The credit ledger: every change of an organization's credits, listed for its Admins.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { desc, eq, count } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
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
  user: Type.Union([Type.Object({ sid: Sid, name: Type.String() }), Type.Null()]),
  date_created: Timestamp,
});

export function registerCredits(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/organizations/credit',
    tag: 'organizations',
    levels: { organization: organizationLevel },
    shapes: { name: Type.Object({ sid: Sid, name: Type.String() }), list: Entry, detail: Entry },
    get: {
      summary: "The organization's credit ledger, newest first (Admin)",
      description: 'Each debit of a cell write and each operator adjustment: who, when, which cell, amount and balance after.',
      allowed: (scope) => permissions.credits.read(scope.membership),
      addPermission: () => false,
      count: async (scope) =>
        (await ctx.db.select({ n: count() }).from(creditLedger).where(eq(creditLedger.organizationSid, scope.membership.organizationSid)))[0].n,
      rows: async (scope, _q, serializer, page) => {
        const found = await ctx.db.select({
          sid: creditLedger.sid, reason: creditLedger.reason, amount: creditLedger.amount, balance: creditLedger.balanceAfter,
          cell: creditLedger.cellSid, row: creditLedger.rowSid, user_sid: users.sid,
          user_name: personName(users),
          date_created: isoTimestamp(creditLedger.dateCreated),
        }).from(creditLedger).leftJoin(users, eq(users.sid, creditLedger.userSid))
          .where(eq(creditLedger.organizationSid, scope.membership.organizationSid))
          .orderBy(desc(creditLedger.id)).limit(page.limit).offset(page.offset);
        return found.map((e) => serializer === 'name' ? { sid: e.sid, name: e.reason } : {
          sid: e.sid, name: e.reason, amount: formatMoney(e.amount), balance_after: formatMoney(e.balance),
          cell: e.cell, row: e.row, user: e.user_sid ? { sid: e.user_sid, name: e.user_name } : null, date_created: e.date_created,
        });
      },
    },
  });
}
