// GET /tables/row/stream/?table__sid=: the changes of a table's rows and cells as
// Server-Sent Events, from whichever server process wrote them, only of the rows the
// viewer may read (docs/decisions.md, "The live grid").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.js';
import { actorOf } from '../../core/auth.js';
import { roleOf, findProjectRole, type Membership } from '../../core/access.js';
import { errors } from '../../core/errors.js';
import { isSid } from '../../core/ids.js';
import { tableLevel } from '../../core/levels.js';
import { refuseOtherMethods } from '../../core/resource.js';
import { currentPersonnel, readsProject } from '../../core/rules.js';
import { ErrorResponses } from '../../core/schemas.js';
import { openEventStream, validStreamCredentials, type EventStream } from '../../core/event-stream.js';
import { query } from '../../db/client.js';
import { Periodic } from '../../jobs/periodic.js';
import { RecordListener, type RecordEvent, type RecordSubscriber } from './live.js';
import { readableRow } from './service.js';
import { RowStreamQuery } from './schemas.js';

/** How often each process checks that its open streams' credentials and roles still hold. */
export const ROW_STREAM_CHECK_SECONDS = 2;

const NO_LONGER_MEMBER = 'You are no longer an active member of the organization.';
const NO_LONGER_PROJECT = 'You may no longer read the rows of this project.';

/** What the viewer may read now: their organization role, and the projects where they have a role. */
interface Standing {
  membership: Pick<Membership, 'role'> | null;
  projects: Set<string>;
}

/** An open stream, as delivery and the periodic check see it. */
interface OpenRowStream extends RecordSubscriber {
  credentialSid: string;
  userSid: string;
  organization: string;
  /** project__sid (or the project of row__sid): the stream ends when that project may no longer be read. */
  project: string | undefined;
  rowSid: string | undefined;
  standing: Standing;
  stream: EventStream;
}

const mayRead = (standing: Standing, projectSid: string) =>
  readsProject.test(standing.membership as Membership | null, standing.projects.has(projectSid) ? 'view' : null);

/** Each (user, organization)'s standing, for the users `userSids`, in one query. */
async function standings(ctx: AppContext, userSids: string[]): Promise<Map<string, Standing>> {
  const found = await query<{ user_sid: string; organization_sid: string; personnel_sid: string; is_administrator: boolean; is_archived: boolean; is_current: boolean; projects: string }>(ctx.db, sql`
    SELECT p.user_sid, p.organization_sid, p.sid AS personnel_sid, p.is_administrator, p.is_archived,
           ${currentPersonnel.sql('p')} AS is_current, coalesce(string_agg(pm.project_sid, ','), '') AS projects
      FROM personnel p LEFT JOIN project_members pm ON pm.personnel_sid = p.sid
     WHERE p.user_sid = ANY(string_to_array(${userSids.join(',')}, ','))
     GROUP BY p.sid`);
  const byKey = new Map<string, Standing>();
  for (const row of found) {
    const role = roleOf(row);
    byKey.set(`${row.user_sid}:${row.organization_sid}`, {
      membership: role ? { role } : null,
      projects: new Set(row.projects ? row.projects.split(',') : []),
    });
  }
  return byKey;
}

/**
 * Checks every open stream of this process: a stream whose credential is gone ends; whose
 * viewer is no longer an active member of the organization ends; whose project (asked for,
 * or the row's) may no longer be read ends; otherwise it hears from now on only of the
 * projects the viewer may read now (a removed project role stops that project's changes).
 */
async function checkStreams(ctx: AppContext, streams: Set<OpenRowStream>): Promise<void> {
  if (!streams.size) return;
  const all = [...streams];
  const valid = await validStreamCredentials(ctx, [...new Set(all.map((s) => s.credentialSid))]);
  const now = await standings(ctx, [...new Set(all.map((s) => s.userSid))]);
  for (const s of all) {
    if (!streams.has(s)) continue;
    if (!valid.has(s.credentialSid)) {
      s.stream.end('Invalid token.');
      continue;
    }
    const standing = now.get(`${s.userSid}:${s.organization}`);
    if (!standing?.membership || standing.membership.role === 'alumni') {
      s.stream.end(NO_LONGER_MEMBER);
      continue;
    }
    if (s.project && !mayRead(standing, s.project)) {
      s.stream.end(NO_LONGER_PROJECT);
      continue;
    }
    s.standing = standing;
  }
}

/** Registers the stream route and its listener; open streams end when the app closes, or when their credential or role does. */
export function registerRowStream(app: FastifyInstance, ctx: AppContext): void {
  const listener = new RecordListener({ database: ctx.database, databaseUrl: ctx.config.databaseUrl, log: app.log });
  const streams = new Set<OpenRowStream>();
  const check = new Periodic({ name: 'row stream check', everySeconds: ROW_STREAM_CHECK_SECONDS, task: () => checkStreams(ctx, streams), log: app.log });
  app.addHook('onReady', async () => {
    await listener.start();
    check.start();
  });
  app.addHook('preClose', async () => {
    await check.stop();
    for (const s of [...streams]) s.stream.close();
  });
  app.addHook('onClose', () => listener.stop());

  const url = '/tables/row/stream/';
  app.get(url, {
    config: { operationId: 'streamRowChanges' },
    schema: {
      tags: ['rows'],
      summary: "Live stream of a table's row and cell changes (Server-Sent Events)",
      description: 'Authenticated like every request (header `token`, `Authorization: Token …` or `Bearer …`, or the web app\'s session cookie alone). '
        + 'Each committed change of a row of `table__sid` the caller may read (an organization Admin: every row; others: the rows of '
        + 'projects where they have a role), whichever server process wrote it, arrives within a second as:\n\n'
        + '- `event: row`, `data: {kind: "row", organization, table, project, row, version, by: {sid, name} | null, date_updated, '
        + 'changes: ["created" | "renamed" | "description" | "locked" | "unlocked" | "archived" | "unarchived"], name, is_locked, is_archived}`;\n'
        + '- `event: cell`, `data: {kind: "cell", organization, table, project, row, version, by, date_updated, cell, column, created, '
        + 'data, data_omitted}`: `data` is the cell\'s new data, or null with `data_omitted: true` when it is longer than 6000 bytes '
        + '(read it with the row: GET /tables/row/detail/{row}/).\n\n'
        + '`version` is the row\'s version the change made; `by` is the personnel who made it. Filters: `project__sid` (only that '
        + 'project: 403 when the caller may not read it), `row__sid` (only that row: 404 when the caller may not read it). '
        + 'Events carry no id and Last-Event-ID is ignored: a client that reconnects re-reads what it shows (so does one that receives '
        + '`event: resync`, sent when this process may have missed changes). The stream ends with `event: end`, `data: {detail}` '
        + 'within seconds of its credential ending, the caller leaving the organization, or losing the project it is limited to; '
        + 'a project role removed stops that project\'s changes. A comment line every 15 seconds keeps the connection open.',
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
    let project = q.project__sid;
    if (q.row__sid !== undefined) {
      const { row } = await readableRow(ctx, actor, q.row__sid);
      if (row.table_sid !== table.sid) throw errors.field('row__sid', 'This row is not a row of table__sid.');
      if (project !== undefined && project !== row.project_sid) throw errors.field('row__sid', 'This row is not a row of project__sid.');
      project = row.project_sid;
    } else if (project !== undefined) {
      const [found] = isSid(project)
        ? await query<{ sid: string }>(ctx.db, sql`SELECT sid FROM projects WHERE sid = ${project} AND organization_sid = ${table.organizationSid}`)
        : [];
      if (!found) throw errors.field('project__sid', 'No project with this sid in this organization.');
      if (!readsProject.test(membership, await findProjectRole(ctx.db, membership.personnelSid, project))) throw errors.forbidden();
    }
    const standing = (await standings(ctx, [actor.userSid])).get(`${actor.userSid}:${table.organizationSid}`) ?? { membership, projects: new Set<string>() };

    let unsubscribe = () => {};
    const subscriber: OpenRowStream = {
      credentialSid: actor.credentialSid,
      userSid: actor.userSid,
      organization: table.organizationSid,
      table: table.sid,
      project,
      rowSid: q.row__sid,
      standing,
      stream: openEventStream(request, reply, () => {
        unsubscribe();
        streams.delete(subscriber);
      }),
      offer(event: RecordEvent) {
        if (subscriber.project !== undefined && event.project !== subscriber.project) return;
        if (subscriber.rowSid !== undefined && event.row !== subscriber.rowSid) return;
        if (!mayRead(subscriber.standing, event.project)) return;
        subscriber.stream.send(event.kind, event);
      },
      resync() {
        subscriber.stream.send('resync', { detail: 'Changes may have been missed: read again what you show.' });
      },
    };
    streams.add(subscriber);
    unsubscribe = listener.subscribe(subscriber);
  });
  refuseOtherMethods(app, url, ['GET']);
}
