// Tables of an organization and their columns.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { allPages, MAX_PAGE_SIZE } from './page';

export const tablesQuery = (orgSid: string, page = 1) =>
  queryOptions({
    queryKey: ['tables', orgSid, page],
    queryFn: () =>
      unwrap(
        api.GET('/tables/table/list/{level}/{sid}/list/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { page, page_size: MAX_PAGE_SIZE } },
        }),
      ),
  });

export function useTables(orgSid: string, page = 1) {
  return useQuery(tablesQuery(orgSid, page));
}

/** One table with its columns, by order; asked for only once its sid is known (a history learns it from its row). */
export const tableQuery = (tableSid: string) =>
  queryOptions({
    queryKey: ['table', tableSid],
    enabled: tableSid !== '',
    queryFn: () => unwrap(api.GET('/tables/table/detail/{sid}/', { params: { path: { sid: tableSid } } })),
  });

export function useTable(tableSid: string) {
  return useQuery(tableQuery(tableSid));
}

export function useCreateTable(orgSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; description?: string }) =>
      unwrap(
        api.POST('/tables/table/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid } },
          body,
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['tables', orgSid] }),
  });
}

/** Every column of the table, with their permissions (add_permission: may the caller add one). */
export const columnsQuery = (orgSid: string, tableSid: string) =>
  queryOptions({
    queryKey: ['columns', tableSid],
    queryFn: () =>
      allPages((page) =>
        unwrap(
          api.GET('/tables/column/list/{level}/{sid}/list/', {
            params: { path: { level: 'organization', sid: orgSid }, query: { table__sid: tableSid, page, page_size: MAX_PAGE_SIZE } },
          }),
        ),
      ),
  });

export function useColumns(orgSid: string, tableSid: string) {
  return useQuery(columnsQuery(orgSid, tableSid));
}

export function useCreateColumn(orgSid: string, tableSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; widget: string }) =>
      unwrap(
        api.POST('/tables/column/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { table__sid: tableSid } },
          body,
        }),
      ),
    onSuccess: () =>
      void Promise.all([
        queryClient.invalidateQueries({ queryKey: ['columns', tableSid] }),
        queryClient.invalidateQueries({ queryKey: ['table', tableSid] }),
      ]),
  });
}
