// What the service tells an operator when it starts: one line saying what it runs on.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';

/** The service's version, from its package.json. */
export const VERSION: string = (() => {
  try {
    const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

/** A URL's scheme, host, port and path, never its user or password. */
function withoutCredentials(raw: string): { host: string; port: string; database?: string } {
  const url = new URL(raw);
  return { host: url.hostname, port: url.port || (url.protocol.startsWith('postgres') ? '5432' : url.protocol === 'smtps:' ? '465' : '587'), database: decodeURIComponent(url.pathname.replace(/^\//, '')) || undefined };
}

/** The fields of the start-up line: version, database, mail, workers, addresses (no secret). */
export function describeService(config: Config, workers: number): Record<string, unknown> {
  const db = config.databaseUrl ? withoutCredentials(config.databaseUrl) : null;
  const smtp = config.smtpUrl ? withoutCredentials(config.smtpUrl) : null;
  return {
    version: VERSION,
    node: process.version,
    listen: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`,
    public_url: config.publicUrl ?? `http://${config.host}:${config.port} (from HOST and PORT; set PUBLIC_URL when clients reach the service elsewhere)`,
    database: db
      ? `PostgreSQL ${db.host}:${db.port}/${db.database ?? '(default database)'}`
      : `embedded PGlite at ${path.join(config.dataDir, 'pgdata')}`,
    mail: smtp ? `SMTP ${smtp.host}:${smtp.port}` : `.eml files in ${path.join(config.dataDir, 'mail')}`,
    workers,
    metrics: config.metricsToken ? 'GET /metrics (Bearer METRICS_TOKEN)' : 'off (set METRICS_TOKEN)',
    tracing: config.otelEndpoint ? `OTLP ${config.otelEndpoint}` : 'off',
  };
}
