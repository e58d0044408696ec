// Organizations: the caller's list, one organization (its credits), creating one, and the
// caller's own personnel record in it (their organization role).
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { allPages, MAX_PAGE_SIZE } from './page';

/** Every organization where the person is active personnel. */
export const organizationsQuery = (userSid: string) =>
  queryOptions({
    queryKey: ['organizations', userSid],
    queryFn: () =>
      allPages((page) =>
        unwrap(
          api.GET('/organizations/organization/list/{level}/{sid}/list/', {
            params: { path: { level: 'user', sid: userSid }, query: { page, page_size: MAX_PAGE_SIZE } },
          }),
        ),
      ),
  });

/** One organization, with its credits. */
export const organizationQuery = (orgSid: string) =>
  queryOptions({
    queryKey: ['organization', orgSid],
    queryFn: () => unwrap(api.GET('/organizations/organization/detail/{sid}/', { params: { path: { sid: orgSid } } })),
  });

export function useOrganizations(userSid: string) {
  return useQuery(organizationsQuery(userSid));
}

export function useOrganization(orgSid: string) {
  return useQuery(organizationQuery(orgSid));
}

/** Creates an organization; the creator becomes its Admin. */
export function useCreateOrganization(userSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; description?: string }) =>
      unwrap(
        api.POST('/organizations/organization/list/{level}/{sid}/detail/', {
          params: { path: { level: 'user', sid: userSid } },
          body,
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['organizations', userSid] }),
  });
}

/**
 * The caller's personnel record in the organization (the list's `user__sid` filter: one
 * request, whatever the organization's size), which says whether they are its Admin.
 */
export const myPersonnelQuery = (orgSid: string, userSid: string) =>
  queryOptions({
    queryKey: ['my-personnel', orgSid, userSid],
    enabled: Boolean(orgSid && userSid),
    queryFn: async () => {
      const found = await unwrap(
        api.GET('/organizations/personnel/list/{level}/{sid}/list/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { user__sid: userSid, page_size: 1 } },
        }),
      );
      return found.results[0] ?? null;
    },
    staleTime: 60_000,
  });

export function useMyPersonnel(orgSid: string, userSid: string) {
  return useQuery(myPersonnelQuery(orgSid, userSid));
}
