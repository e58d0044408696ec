import type { FastifyRequest } from 'fastify';

/** The service's public base URL (PUBLIC_URL, or the request's own scheme and host), without a trailing slash. */
export function baseUrlOf(request: FastifyRequest, publicUrl: string | null): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}
