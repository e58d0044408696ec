// GET /tables/row/stream/?table__sid=: the changes of a table's rows and cells as
// Server-Sent Events, from whichever server process wrote them, only of the rows the
// viewer may read (docs/decisions.md, "The live grid").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { actorOf } from '../../core/auth.js';
import { findProjectRole } from '../../core/access.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { tableLevel } from '../../core/levels.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { readsProject } from '../../core/rules.js';
import { ErrorResponses } from '../../core/schemas.js';
import type { StreamPolicy } from '../../core/live/hub.js';
import { mayReadProject, mayReadRow, standingsOf, type OrgStanding } from '../../core/live/standing.js';
import { query } from '../../db/client.js';
import { RecordChanges, type RecordEvent } from './live.js';
import { readableRow } from './service.js';
import { RowStreamQuery } from './schemas.js';

const NO_LONGER_MEMBER = 'You are no longer an active member of the organization.';
const NO_LONGER_PROJECT = 'You may no longer read the rows of this project.';

/** What a row stream listens to, and what its viewer may read now. */
interface RowStreamState {
  organization: string;
  /** project__sid (or the project of row__sid): the stream ends when that project may no longer be read. */
  project: string | undefined;
  rowSid: string | undefined;
  standing: OrgStanding;
}

/**
 * What a row stream hears as its viewer's standing changes: a viewer no longer an active
 * member of the organization ends it; so does losing the project it is limited to (asked
 * for, or the row's); otherwise it hears from now on only of the projects the viewer may
 * read now (a removed project role stops that project's changes, a new one starts them).
 */
function rowPolicy(state: RowStreamState): StreamPolicy {
  return {
    restand(standing) {
      const there = standing.get(state.organization);
      if (!there || there.role === 'alumni') return NO_LONGER_MEMBER;
      if (state.project && !mayReadProject(there, state.project)) return NO_LONGER_PROJECT;
      state.standing = there;
      return null;
    },
  };
}

/** Registers the stream route and its listener; open streams end when the app closes, or when their credential or role does. */
export function registerRowStream(app: FastifyInstance, ctx: AppContext): void {
  const changes = new RecordChanges(ctx.live, app.log);

  const url = '/tables/row/stream/';
  app.get(url, {
    config: { operationId: 'streamRowChanges' },
    schema: {
      tags: ['rows'],
      summary: "Live stream of a table's row and cell changes (Server-Sent Events)",
      description: 'Authenticated like every request (header `token`, `Authorization: Token …` or `Bearer …`, or the web app\'s session cookie alone). '
        + 'Each committed change of a row of `table__sid` the caller may read (an organization Admin: every row; others: the rows of '
        + 'projects where they have a role, and the rows open to the organization), whichever server process wrote it, arrives within a second as:\n\n'
        + '- `event: row`, `data: {kind: "row", organization, table, project, projects, row, open, version, by: {sid, name} | null, date_updated, '
        + 'changes: ["created" | "renamed" | "description" | "fields" | "projects" | "sections" | "locked" | "unlocked" | "archived" | "unarchived"], name, is_locked, is_archived}`;\n'
        + '- `event: cell`, `data: {kind: "cell", organization, table, project, projects, row, open, version, by, date_updated, cell, column, created, '
        + 'data, data_omitted}`: `data` is the cell\'s new data, or null with `data_omitted: true` when it is longer than 6000 bytes '
        + '(read it with the row: GET /tables/row/detail/{row}/).\n\n'
        + '`open` is the row\'s own open_to_organization; `version` is the row\'s version the change made; `by` is the personnel who made it. Filters: `project__sid` (only that '
        + 'project: 403 when the caller may not read it), `row__sid` (only that row: 404 when the caller may not read it). '
        + 'Events carry no id and Last-Event-ID is ignored: a client that reconnects re-reads what it shows (so does one that receives '
        + '`event: resync`, sent when this process may have missed changes). The stream ends with `event: end`, `data: {detail}` '
        + 'within seconds of its credential ending, the caller leaving the organization, or losing the project it is limited to; '
        + 'a project role removed stops that project\'s changes, a project role given starts them. A comment line every 15 seconds keeps the connection open. '
        + 'One credential holds at most LIVE_STREAMS_PER_CREDENTIAL open streams in a server process (429 beyond).',
      querystring: RowStreamQuery,
      response: {
        200: { description: 'a text/event-stream of `row`, `cell`, `resync` and `end` events', content: { 'text/event-stream': { schema: Type.String() } } },
        ...ErrorResponses,
      },
    },
  }, async (request: FastifyRequest, reply: FastifyReply) => {
    const actor = actorOf(request);
    const q = request.query as { table__sid: string; project__sid?: string; row__sid?: string };
    const { membership, table } = await tableLevel(ctx, actor, q.table__sid);
    const standing = (await standingsOf(ctx.db, [actor.userSid])).get(actor.userSid)?.get(table.organizationSid)
      ?? { role: membership.role, personnelSid: membership.personnelSid, projects: new Map() };
    let project = q.project__sid;
    if (q.row__sid !== undefined) {
      const { row } = await readableRow(ctx, actor, q.row__sid);
      if (row.table_sid !== table.sid) throw errors.field('row__sid', 'This row is not a row of table__sid.');
      if (project !== undefined && project !== row.project_sid) {
        const [other] = await query<{ one: number }>(ctx.db, sql`SELECT 1 AS one FROM record_row_projects WHERE row_sid = ${row.sid} AND project_sid = ${project}`);
        if (!other) throw errors.field('row__sid', 'This row is not a row of project__sid.');
      }
      // Limited to the row's first project when the viewer reads the row through it (the stream
      // ends when they no longer may); read otherwise (another of its projects, or the row open
      // to the organization), each event is checked alone.
      if (project === undefined && mayReadProject(standing, row.project_sid)) project = row.project_sid;
    } else if (project !== undefined) {
      const [found] = isSid(project)
        ? await query<{ sid: string }>(ctx.db, sql`SELECT sid FROM projects WHERE sid = ${project} AND organization_sid = ${table.organizationSid}`)
        : [];
      if (!found) throw errors.field('project__sid', 'No project with this sid in this organization.');
      if (!readsProject.test(membership, await findProjectRole(ctx.db, membership.personnelSid, project))) throw errors.forbidden();
    }
    const state: RowStreamState = {
      organization: table.organizationSid,
      project,
      rowSid: q.row__sid,
      standing,
    };
    let unsubscribe = () => {};
    const stream = await ctx.live.open(request, reply, actor, rowPolicy(state), () => unsubscribe());
    if (stream.closed) return; // the client left already
    unsubscribe = changes.subscribe({
      table: table.sid,
      offer(event: RecordEvent) {
        const projects = event.projects ?? [event.project];
        if (state.project !== undefined && !projects.includes(state.project)) return;
        if (state.rowSid !== undefined && event.row !== state.rowSid) return;
        // A row is read through any of its projects, or by every active member when it is open to the organization (rules.ts, readsRow).
        if (!mayReadRow(state.standing, projects, event.open === true)) return;
        stream.send(event.kind, event);
      },
      resync() {
        stream.send('resync', { detail: 'Changes may have been missed: read again what you show.' });
      },
    });
  });
  refuseOtherMethods(app, url, ['GET']);
}
