// Personnel of an organization: the paged list, one member, adding by email, changing.
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { MAX_PAGE_SIZE } from './page';
import type { paths } from './schema';

export const PERSONNEL_PAGE_SIZE = 25;

/** A page of the organization's personnel in the list shape (those whose name or email contains `search`). */
export const personnelQuery = (orgSid: string, page = 1, pageSize = PERSONNEL_PAGE_SIZE, search = '') =>
  queryOptions({
    queryKey: ['personnel', orgSid, page, pageSize, search],
    queryFn: () =>
      unwrap(
        api.GET('/organizations/personnel/list/{level}/{sid}/list/', {
          params: {
            path: { level: 'organization', sid: orgSid },
            query: { page, page_size: pageSize, ...(search ? { search } : {}) },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });

export function usePersonnel(orgSid: string, page = 1, search = '') {
  return useQuery(personnelQuery(orgSid, page, PERSONNEL_PAGE_SIZE, search));
}

/**
 * Up to 100 personnel in the name shape, those whose name or email contains `search` (all
 * when empty), for choosing someone; `count` says how many there are in all.
 */
export function usePersonnelNames(orgSid: string, search = '') {
  return useQuery({
    queryKey: ['personnel-names', orgSid, search],
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/organizations/personnel/list/{level}/{sid}/name/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { page_size: MAX_PAGE_SIZE, ...(search ? { search } : {}) } },
        }),
      ),
  });
}

/** The organization's Admins (the first 10, and how many there are): who adds people to projects. */
export function useOrganizationAdmins(orgSid: string, enabled = true) {
  return useQuery({
    queryKey: ['personnel-admins', orgSid],
    enabled,
    queryFn: () =>
      unwrap(
        api.GET('/organizations/personnel/list/{level}/{sid}/list/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { is_administrator: true, page_size: 10 } },
        }),
      ),
  });
}

/** One member in the detail shape. */
export const personnelDetailQuery = (sid: string) =>
  queryOptions({
    queryKey: ['personnel-detail', sid],
    queryFn: () => unwrap(api.GET('/organizations/personnel/detail/{sid}/', { params: { path: { sid } } })),
  });

export function usePersonnelDetail(sid: string | null) {
  return useQuery({ ...personnelDetailQuery(sid ?? ''), enabled: Boolean(sid) });
}

export interface NewPersonnel {
  email: string;
  first_name?: string;
  last_name?: string;
  title?: string;
  is_administrator?: boolean;
}

export function useAddPersonnel(orgSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewPersonnel) =>
      unwrap(
        api.POST('/organizations/personnel/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid } },
          body,
        }),
      ),
    onSuccess: () =>
      void Promise.all([
        queryClient.invalidateQueries({ queryKey: ['personnel', orgSid] }),
        queryClient.invalidateQueries({ queryKey: ['personnel-names', orgSid] }),
      ]),
  });
}

/** The fields a PATCH of a personnel record takes (the API says which the caller may send). */
export type PersonnelChanges = NonNullable<
  paths['/organizations/personnel/detail/{sid}/']['patch']['requestBody']
>['content']['application/json'];

export function useUpdatePersonnel(orgSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ sid, changes }: { sid: string; changes: PersonnelChanges }) =>
      unwrap(api.PATCH('/organizations/personnel/detail/{sid}/', { params: { path: { sid } }, body: changes })),
    onSuccess: (person) => {
      queryClient.setQueryData(['personnel-detail', person.sid], person);
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: ['personnel', orgSid] }),
        queryClient.invalidateQueries({ queryKey: ['my-personnel', orgSid] }),
      ]);
    },
  });
}
