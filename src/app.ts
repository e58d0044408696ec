// buildApp: the one factory the server, the CLI's checks and the tests all use.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { AppContext } from './context.js';
import { WorkBudget } from './core/heavy-work.js';
import { MailWorker } from './jobs/mail.js';
import { digestJob } from './jobs/digest.js';
import { JobRegistry } from './jobs/registry.js';
import { creditsVacuum } from './jobs/vacuum.js';
import { retentionJob } from './jobs/retention.js';
import { statisticsJob } from './jobs/statistics.js';
import { filesGcJob } from './jobs/files-gc.js';
import { thumbnailsJob } from './jobs/thumbnails.js';
import { createFileStorage } from './storage/index.js';
import { installErrorHandler } from './core/error-handler.js';
import { MAX_PARAM_LENGTH, clientErrorHandler, frameworkErrors, installEmptyBodyAsNone } from './core/protocol-errors.js';
import { installServerTiming } from './core/query-count.js';
import { registerOpenApi } from './core/openapi.js';
import { errors } from './core/errors.js';
import { authenticate, requestCredential } from './core/auth.js';
import { installIdempotency } from './core/idempotency.js';
import { installWriteTurns } from './core/write-turns.js';
import { installMetrics } from './core/metrics.js';
import { installRequestSpans } from './core/tracing.js';
import { ambientTransaction } from './core/record-lock.js';
import { LiveHub, liveStreamCheck } from './core/live/hub.js';
import { registerHealth } from './modules/health/routes.js';
import { registerAccounts } from './modules/accounts/routes.js';
import { registerApiKeys } from './modules/accounts/apikeys.js';
import { registerOrganizations } from './modules/organizations/routes.js';
import { registerPersonnel } from './modules/personnel/routes.js';
import { registerConsent } from './modules/personnel/consent.js';
import { registerProjects } from './modules/projects/routes.js';
import { registerProjectMembers } from './modules/project-members/routes.js';
import { registerTeams } from './modules/teams/routes.js';
import { registerTables } from './modules/tables/routes.js';
import { registerWidgets } from './modules/widgets/routes.js';
import { registerColumns } from './modules/columns/routes.js';
import { registerRows } from './modules/rows/routes.js';
import { registerCells } from './modules/cells/routes.js';
import { registerSections } from './modules/sections/routes.js';
import { registerFilters } from './modules/filters/routes.js';
import { registerActivities } from './modules/activities/routes.js';
import { registerVersions } from './modules/versions/routes.js';
import { registerCredits } from './modules/credits/routes.js';
import { registerAdmin } from './modules/admin/routes.js';
import { registerWorkflows } from './modules/workflows/routes.js';
import { registerSteps } from './modules/steps/routes.js';
import { registerExecutions } from './modules/executions/routes.js';
import { registerNotifications } from './modules/notifications/routes.js';
import { registerSession } from './modules/accounts/session.js';
import { registerWeb, CONTENT_SECURITY_POLICY } from './modules/web/routes.js';
import { registerFiles } from './modules/files/routes.js';
import { registerExports } from './modules/exports/routes.js';
import { registerImports } from './modules/imports/routes.js';
import { registerElnImport } from './modules/imports/eln-routes.js';
import { errSerializer } from './core/log-redaction.js';
import { SchemaCompilers } from './core/compilers.js';

export interface BuildOptions {
  config: Config;
  database: Database;
  /** Run the background workers (mail, digest, vacuum, retention) in this process (default true). */
  workers?: boolean;
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** A caller's X-Request-Id is kept when it is 1–128 visible characters of this set. */
const REQUEST_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

/** The URL with every query value replaced by "…", so no secret reaches a log line. */
function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = new URLSearchParams(url.slice(at + 1));
  return `${url.slice(0, at)}?${[...names.keys()].map((k) => `${k}=…`).join('&')}`;
}

/** Builds the HTTP application on a database; listening is the caller's business. */
export async function buildApp(options: BuildOptions): Promise<{ app: FastifyInstance; ctx: AppContext }> {
  const { config, database } = options;
  // Route schemas compile on first use and once the server listens, not before (core/compilers.ts).
  const compilers = new SchemaCompilers();
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : {
      level: config.logLevel,
      redact: ['req.headers.token', 'req.headers.authorization', 'req.headers.cookie'],
      serializers: {
        // A failed statement's parameters (emails, names, password hashes) never reach a log: core/log-redaction.ts.
        err: errSerializer,
        // Query strings can carry secrets (the reset tag): log only their parameter names.
        req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactQuery(req.url), remoteAddress: req.ip }),
      },
    },
    bodyLimit: config.bodyLimit,
    // Only the proxies named in TRUSTED_PROXIES are believed about the client's address (X-Forwarded-For).
    trustProxy: config.trustedProxies.length ? config.trustedProxies : false,
    // Every request gets an id unique across processes and restarts (a random UUID), or
    // keeps the caller's X-Request-Id when it is a sensible one; it is in every log line
    // of the request (reqId) and in the answer's X-Request-Id.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // While closing, the hook below answers 503 in the API's own error shape.
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Requests the router or Node's parser refuse get the API's bodies (core/protocol-errors.ts).
    frameworkErrors,
    clientErrorHandler,
    // A client has REQUEST_TIMEOUT_SECONDS to send a whole request (then 408), checked every second.
    requestTimeout: config.requestTimeoutSeconds * 1000,
    // (Node checks headersTimeout <= requestTimeout as it creates the server, before Fastify
    // sets requestTimeout: both go in here, or a timeout past Node's default 300 s fails the start.)
    http: { requestTimeout: config.requestTimeoutSeconds * 1000, headersTimeout: config.requestTimeoutSeconds * 1000, connectionsCheckingInterval: 1000 },
    // One serializer per distinct answer schema (core/compilers.ts).
    schemaController: { compilersFactory: { buildSerializer: compilers.serializer } },
  });

  // Bodies are validated strictly, query strings and path parameters coerced from their
  // text form; one validator per distinct schema (core/compilers.ts).
  app.setValidatorCompiler(compilers.validator());
  app.addHook('onListen', () => compilers.warm(app.log));

  // JSON only: other media types get 415.
  app.removeContentTypeParser('text/plain');

  installErrorHandler(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  const heavy = new WorkBudget(config.heavyWorkBytes, config.heavyWorkWaitMs);
  const metrics = installMetrics(app, database, heavy, config.metricsToken);
  if (config.otelEndpoint) installRequestSpans(app);
  installEmptyBodyAsNone(app);
  if (config.serverTiming) installServerTiming(app);
  // Parses the browser session's cookie (core/auth.ts requestCredential).
  await app.register(cookie);

  const mail = new MailWorker({
    db: database.db,
    smtpUrl: config.smtpUrl,
    mailFrom: config.mailFrom,
    dataDir: config.dataDir,
    log: app.log,
    retrySeconds: config.mailRetrySeconds,
  });
  // Every background loop of the process is a job of this registry (jobs/registry.ts).
  const jobs = new JobRegistry(app.log, metrics);
  // The live machinery: one LISTEN per process, every open stream, their re-check (core/live/hub.ts).
  const live = new LiveHub({
    database, databaseUrl: config.databaseUrl, log: app.log, metrics,
    tokenIdleMinutes: config.tokenIdleMinutes, streamsPerCredential: config.liveStreamsPerCredential,
  });
  // A batch of live events that could not be sent (db/after-commit.ts) is logged and dropped.
  database.publisher.onError = (err) => app.log.warn({ err }, 'live events not sent');
  // Every process serves streams (workers or not): listening and the re-check run in each.
  jobs.register(liveStreamCheck(live));
  app.addHook('onReady', () => live.start());
  app.addHook('preClose', async () => {
    live.closeAll();
  });
  app.addHook('onClose', () => live.stop());
  if (options.workers !== false) mail.register(jobs);
  // Files' storage: checked at start-up (the folder written to, the bucket answering).
  const files = createFileStorage(config.files);
  app.addHook('onReady', () => files.store.open());
  app.addHook('onClose', () => files.store.close());
  const ctx: AppContext = {
    config, database, mail, metrics, live, jobs, files, heavy,
    get db() { return ambientTransaction() ?? database.db; },
  };

  // The OpenAPI document (/openapi.json) and the reference page (/docs/): core/openapi.ts.
  await registerOpenApi(app);

  // Graceful shutdown (SIGTERM): requests in flight finish; a request that arrives on an
  // open connection meanwhile gets 503, and every answer from then on closes its
  // connection, or a keep-alive connection would hold app.close() open until it times out.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) {
      reply.header('connection', 'close');
      throw errors.unavailable();
    }
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (request) => {
    if (request.is404 || request.routeOptions.config?.auth === false || request.url.startsWith('/docs')) return;
    // A list at level organization (or a path naming a table): read the caller's standing there with the credential.
    const params = request.params as { level?: string; sid?: string };
    const standingIn = params.sid === undefined ? undefined
      : params.level === 'organization' ? { organization: params.sid }
        : request.routeOptions.config?.standingOf === 'table' ? { table: params.sid } : undefined;
    request.actor = await authenticate(database.db, requestCredential(request).credential, config.tokenIdleMinutes, standingIn,
      request.routeOptions.config?.unproven === true);
  });
  installIdempotency(app, database.db);
  installWriteTurns(app);
  app.addHook('onSend', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    if (!request.url.startsWith('/docs')) {
      // A file's download carries its own, stricter policy (modules/files/download.ts).
      if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      // The web app's files carry their own Cache-Control (modules/web/routes.ts).
      if (!request.routeOptions.config?.web && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    }
  });

  registerHealth(app, ctx);
  registerAccounts(app, ctx);
  registerSession(app, ctx);
  registerApiKeys(app, ctx);
  registerOrganizations(app, ctx);
  registerPersonnel(app, ctx);
  registerConsent(app, ctx);
  registerProjects(app, ctx);
  registerProjectMembers(app, ctx);
  registerTeams(app, ctx);
  registerTables(app, ctx);
  registerWidgets(app, ctx);
  registerColumns(app, ctx);
  registerRows(app, ctx);
  registerCells(app, ctx);
  registerSections(app, ctx);
  registerFilters(app, ctx);
  registerActivities(app, ctx);
  registerVersions(app, ctx);
  registerCredits(app, ctx);
  registerAdmin(app, ctx);
  registerWorkflows(app, ctx);
  registerSteps(app, ctx);
  registerExecutions(app, ctx);
  registerNotifications(app, ctx);
  registerExports(app, ctx);
  registerImports(app, ctx);
  registerElnImport(app, ctx);
  const resumable = registerFiles(app, ctx);
  await registerWeb(app, ctx);

  if (options.workers !== false) {
    jobs.register(digestJob({ db: database.db, log: app.log, checkSeconds: config.digestCheckSeconds, onQueued: () => mail.kick() }));
    jobs.register(creditsVacuum(database.db));
    jobs.register(statisticsJob(database.db, config.statisticsCheckSeconds));
    jobs.register(retentionJob({ db: database.db, log: app.log, everySeconds: config.retentionCheckSeconds, tokenIdleMinutes: config.tokenIdleMinutes, dataDir: config.dataDir }));
    jobs.register(filesGcJob({ db: database.db, files, log: app.log, expireResumable: () => resumable.cleanUpExpired() }));
    jobs.register(thumbnailsJob({ db: database.db, files, log: app.log }));
  }
  app.addHook('onReady', async () => jobs.start());
  app.addHook('onClose', () => jobs.stop());
  return { app, ctx };
}
