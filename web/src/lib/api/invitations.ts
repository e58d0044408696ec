// Consent before mail (docs/decisions.md): the organizations that added the person and wait
// for an answer, accepting one (from then on it may mail them), leaving one, and the
// invitation an emailed invitation tag is for (the password page names it).
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, toApiError, unwrap } from './client';
import type { components } from './schema';

export type Invitation = components['schemas']['Invitation'];
export type TagInvitation = components['schemas']['TagInvitation'];

export const pendingInvitationsQuery = queryOptions({
  queryKey: ['invitations'],
  queryFn: () => unwrap(api.GET('/accounts/invitations/')),
  staleTime: 60_000,
});

/** The person's memberships not accepted yet. */
export function usePendingInvitations() {
  return useQuery(pendingInvitationsQuery);
}

/** The invitation of an emailed tag, or null when the tag is not an open invitation's (a reset, used, expired). */
export function useTagInvitation(tag: string | undefined) {
  return useQuery({
    queryKey: ['invitation', tag],
    enabled: Boolean(tag),
    retry: false,
    staleTime: Infinity,
    queryFn: async (): Promise<TagInvitation | null> => {
      const { data, error, response } = await api.GET('/accounts/invitation/', { params: { query: { tag: tag! } } });
      if (response.status === 400) return null;
      if (!response.ok || !data) throw toApiError(response.status, error);
      return data;
    },
  });
}

/**
 * After an answer: what waits and the person's organizations are read again (awaited, so a
 * screen after it never shows the old list). A read still in flight is dropped first: it may
 * have been answered before this answer was, and TanStack Query joins a first read in flight
 * (one with no data yet) instead of reading again (the invitation link's page, opened
 * straight from the mail, read the invitations as it accepted one; the prompt then stayed
 * for a minute, its staleTime).
 */
function useAfterAnswer() {
  const queryClient = useQueryClient();
  const readAgain = async (queryKey: readonly unknown[]) => {
    await queryClient.cancelQueries({ queryKey });
    await queryClient.invalidateQueries({ queryKey, refetchType: 'all' });
  };
  return () => Promise.all([readAgain(pendingInvitationsQuery.queryKey), readAgain(['organizations'])]);
}

/** Accepts the organization of one's own personnel record `sid`. */
export function useAcceptInvitation() {
  const after = useAfterAnswer();
  return useMutation({
    mutationFn: (sid: string) => unwrap(api.POST('/organizations/personnel/detail/{sid}/accept/', { params: { path: { sid } } })),
    onSuccess: after,
  });
}

/** Leaves the organization of one's own personnel record `sid`. */
export function useLeaveOrganization() {
  const after = useAfterAnswer();
  return useMutation({
    mutationFn: (sid: string) => unwrap(api.POST('/organizations/personnel/detail/{sid}/leave/', { params: { path: { sid } } })),
    onSuccess: after,
  });
}
