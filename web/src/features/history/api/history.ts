// A row's history: the row, its versions (oldest first, with their data), one version,
// editing a commit message, and verifying the hash chain.
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../lib/api/client';
import type { components } from '../../../lib/api/schema';

export type Version = components['schemas']['VersionDetail'];

/** A version record (the list gives bare row data instead only with `dataonly`, which the app never sends). */
function isVersion(item: unknown): item is Version {
  return typeof item === 'object' && item !== null && typeof (item as { version?: unknown }).version === 'number' && 'sid' in item;
}

export const VERSIONS_PAGE_SIZE = 20;

export function useRow(rowSid: string) {
  return useQuery({
    queryKey: ['row', rowSid],
    queryFn: () => unwrap(api.GET('/tables/row/detail/{sid}/', { params: { path: { sid: rowSid } } })),
  });
}

/** A page of the row's versions in the shape with data (oldest first). */
export const versionsQuery = (orgSid: string, rowSid: string, page: number) =>
  queryOptions({
    queryKey: ['versions', rowSid, page],
    queryFn: async () => {
      const found = await unwrap(
        api.GET('/tables/version/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { row__sid: rowSid, page, page_size: VERSIONS_PAGE_SIZE } },
        }),
      );
      return { ...found, results: found.results.filter(isVersion) };
    },
    placeholderData: keepPreviousData,
  });

export function useVersions(orgSid: string, rowSid: string, page: number) {
  return useQuery(versionsQuery(orgSid, rowSid, page));
}

/** One version with its data (for comparing). */
export function useVersion(sid: string | null) {
  return useQuery({
    queryKey: ['version', sid],
    enabled: Boolean(sid),
    queryFn: () => unwrap(api.GET('/tables/version/detail/{sid}/', { params: { path: { sid: sid! } } })),
  });
}

/** Changes a version's commit message (the only thing of a version that changes). */
export function useEditCommit(rowSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ sid, commit }: { sid: string; commit: string | null }) =>
      unwrap(api.PATCH('/tables/version/detail/{sid}/', { params: { path: { sid } }, body: { commit } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['versions', rowSid] }),
  });
}

/** Verifies the row's whole chain in one call: valid, or the first broken version. */
export function useVerifyChain(rowSid: string) {
  return useMutation({
    mutationFn: () => unwrap(api.GET('/tables/row/detail/{sid}/verify/', { params: { path: { sid: rowSid } } })),
  });
}
