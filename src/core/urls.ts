import type { FastifyRequest } from 'fastify';

/**
 * The base of next/previous links (PUBLIC_URL, or the request's own scheme and host), without a
 * trailing slash. They go only to the caller; links in mail use config.mailBaseUrl, never a request.
 */
export function baseUrlOf(request: FastifyRequest, publicUrl: string | null): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}
