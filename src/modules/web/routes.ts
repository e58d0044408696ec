// Serving the web app (issue 13): the Vite build in dist/web (WEB_DIR) at `/`.
//   /assets/*          hashed files: Cache-Control: public, max-age=31536000, immutable
//   /, /index.html     the app's page: Cache-Control: no-cache
//   any GET asking for text/html on a path without a GET route of the API (client routes,
//   the POST-only links in mail: /accounts/verifyemail/?tag=…, /accounts/resetpassword/?tag=…)
//                      the app's page, so its router shows the right screen
// Everything else keeps the API's JSON 404. Without a build, `/` says how to make one.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../core/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A file of the web app (its own Cache-Control). */
    web?: boolean;
  }
}

/**
 * The Content-Security-Policy of every answer but /docs/: only the app's own scripts,
 * styles and connections (no inline script or style), images also as data: URLs, and
 * never inside a frame.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'",
  "connect-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The app's index.html, read once at boot with its gzip and brotli forms. */
interface IndexPage { plain: Buffer; gzip: Buffer; br: Buffer }

function loadIndex(file: string): IndexPage | null {
  if (!fs.existsSync(file)) return null;
  const plain = fs.readFileSync(file);
  return {
    plain,
    gzip: zlib.gzipSync(plain, { level: 9 }),
    br: zlib.brotliCompressSync(plain, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
  };
}

/** Whether the client takes `encoding` (named in Accept-Encoding without q=0). */
function accepts(header: string | undefined, encoding: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    if (name.trim().toLowerCase() !== encoding) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function sendIndex(page: IndexPage, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const encoding = request.headers['accept-encoding'];
  const [body, coding] = accepts(encoding, 'br') ? [page.br, 'br'] : accepts(encoding, 'gzip') ? [page.gzip, 'gzip'] : [page.plain, null];
  reply.code(200).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').header('vary', 'Accept-Encoding');
  if (coding) reply.header('content-encoding', coding);
  return reply.send(body);
}

/** Whether a request is a browser's navigation: a GET (or HEAD) whose Accept names text/html. */
function wantsPage(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && (request.headers.accept ?? '').includes('text/html');
}

export async function registerWeb(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const root = ctx.config.webDir;
  const page = loadIndex(path.join(root, 'index.html'));

  app.get('/', { config: { auth: false, web: true }, schema: { hide: true } }, async (request, reply) => {
    if (!page) {
      throw new ApiError(404, { detail: `The web app is not built (no ${path.join(root, 'index.html')}): run \`npm run build\`, then \`npm start\`. The API and /docs/ work without it.` });
    }
    return sendIndex(page, request, reply);
  });
  if (!page) return;

  // A navigation to a path the API does not answer with a GET: the app's page.
  app.addHook('onRequest', async (request, reply) => {
    if (!wantsPage(request)) return;
    if (request.is404 || request.routeOptions.config?.refusal) {
      sendIndex(page, request, reply);
      return reply;
    }
  });

  await app.register(async (web) => {
    web.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), auth: false, web: true };
    });
    await web.register(compress, { globalDecompression: false, encodings: ['br', 'gzip'] });
    await web.register(fastifyStatic, {
      root,
      prefix: '/',
      wildcard: false,
      index: false,
      cacheControl: false,
      etag: true,
      setHeaders: (reply, file) => {
        const relative = path.relative(root, file).split(path.sep).join('/');
        reply.header('cache-control', relative.startsWith('assets/') ? IMMUTABLE : 'no-cache');
      },
    });
  });
}
