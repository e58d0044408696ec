// The credit ledger: every change of an organization's credits, listed for its Admins.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { defineList } from '../../core/resource.js';
import { organizationLevel } from '../../core/levels.js';
import { permissions } from '../../core/permissions.js';
import { countLedger, LedgerShapes, pageLedger } from './ledger.js';

export function registerCredits(app: FastifyInstance, ctx: AppContext): void {
  defineList(app, ctx, {
    path: '/organizations/credit',
    tag: 'organizations',
    levels: { organization: organizationLevel },
    shapes: LedgerShapes,
    get: {
      summary: "The organization's credit ledger, newest first (Admin)",
      description: 'Each debit of a cell write, each operator adjustment and each grant of an instance administrator: who, when, '
        + 'which cell, amount and balance after.',
      allowed: (scope) => permissions.credits.read(scope.membership),
      addPermission: () => false,
      count: (scope) => countLedger(ctx.db, scope.membership.organizationSid),
      rows: (scope, _q, serializer, page) => pageLedger(ctx.db, scope.membership.organizationSid, serializer, page),
    },
  });
}
