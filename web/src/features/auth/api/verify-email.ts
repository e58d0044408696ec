// Proving an email (design.md "Proving an email"): POST /accounts/verifyemail/?tag=…,
// no credential. The path is typed here from the design until openapi.json carries it
// (another change adds it to the API); then this file uses the generated types alone.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import createClient from 'openapi-fetch';
import { unwrap } from '../../../lib/api/client';
import { sessionQuery } from '../../../lib/api/session';

interface VerifyEmailPaths {
  '/accounts/verifyemail/': {
    post: {
      parameters: { query: { tag: string } };
      responses: {
        200: { content: { 'application/json': { detail: string } } };
        400: { content: { 'application/json': { detail?: string } } };
        404: { content: { 'application/json': { detail?: string } } };
      };
    };
  };
}

const client = createClient<VerifyEmailPaths>({ baseUrl: '', credentials: 'same-origin', headers: { 'X-Requested-With': 'records-web' } });

/** Proves the email of the account the tag was mailed to (a session in this browser then reads itself again). */
export function useVerifyEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tag: string) => unwrap(client.POST('/accounts/verifyemail/', { params: { query: { tag } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
  });
}
