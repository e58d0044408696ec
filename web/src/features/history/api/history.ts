// A row's history: the row, its versions (oldest first, with their data), one version,
// editing a commit message, and verifying the hash chain.
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../../lib/api/client';
import type { components } from '../../../lib/api/schema';
import { useRecordStream, type LiveStatus, type RecordChange } from '../../../lib/api/record-stream';

export type Version = components['schemas']['VersionDetail'];

/** A version record (the list gives bare row data instead only with `dataonly`, which the app never sends). */
function isVersion(item: unknown): item is Version {
  return typeof item === 'object' && item !== null && typeof (item as { version?: unknown }).version === 'number' && 'sid' in item;
}

export const VERSIONS_PAGE_SIZE = 20;

export function useRow(rowSid: string) {
  return useQuery({
    queryKey: ['row', rowSid],
    queryFn: () => fetchRow(rowSid),
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

type RowDetail = Awaited<ReturnType<typeof fetchRow>>;
const fetchRow = (rowSid: string) => unwrap(api.GET('/tables/row/detail/{sid}/', { params: { path: { sid: rowSid } } }));

/**
 * Keeps an open history live: each change of the row puts its new state into the cached
 * row in place and reads the shown page of versions again (its new version appears).
 * Returns the stream's status and the last change heard.
 */
export function useLiveHistory(rowSid: string, tableSid: string): { status: LiveStatus; last: RecordChange | null } {
  const queryClient = useQueryClient();
  const [last, setLast] = useState<RecordChange | null>(null);
  const status = useRecordStream(
    { tableSid, rowSid },
    (change) => {
      queryClient.setQueryData<RowDetail>(['row', rowSid], (old) => {
        if (!old) return old;
        const version = Math.max(old.version, change.version);
        if (change.kind === 'row') return { ...old, name: change.name, is_locked: change.is_locked, is_archived: change.is_archived, version };
        return { ...old, version, cells: old.cells.map((cell) => (cell.sid === change.cell && change.data !== null ? { ...cell, data: change.data } : cell)) };
      });
      void queryClient.invalidateQueries({ queryKey: ['versions', rowSid] });
      setLast(change);
    },
    () => void queryClient.invalidateQueries({ queryKey: ['row', rowSid] }).then(() => queryClient.invalidateQueries({ queryKey: ['versions', rowSid] })),
  );
  return { status, last };
}
