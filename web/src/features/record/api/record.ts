// A record opened as a page: the row with its cells and sections, adding a section and
// saving a section's content; kept live by the row's stream (another person's saved
// section shows here as it happens).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../../lib/api/client';
import type { components } from '../../../lib/api/schema';
import { useRecordStream, type LiveStatus, type RecordChange } from '../../../lib/api/record-stream';

export type Section = components['schemas']['SectionDetail'];
export type JsonValue = components['schemas']['JsonValue'];

const recordKey = (rowSid: string) => ['record', rowSid] as const;

export function useRecord(rowSid: string) {
  return useQuery({
    queryKey: recordKey(rowSid),
    queryFn: () => unwrap(api.GET('/tables/row/detail/{sid}/', { params: { path: { sid: rowSid } } })),
  });
}

/** Adds a section at the end of the row. */
export function useAddSection(orgSid: string, rowSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      unwrap(api.POST('/tables/section/list/{level}/{sid}/detail/', {
        params: { path: { level: 'organization', sid: orgSid }, query: { row__sid: rowSid } },
        body: { name, data: { type: 'doc', content: [{ type: 'paragraph' }] } },
      })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: recordKey(rowSid) }),
  });
}

/** Saves a section's content (one version of the row). */
export function useSaveSection(rowSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ sid, data }: { sid: string; data: JsonValue }) =>
      unwrap(api.PATCH('/tables/section/detail/{sid}/', { params: { path: { sid } }, body: { data } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: recordKey(rowSid) }),
  });
}

/** Keeps the open record live: each change of the row reads it again. The stream's status and the last change heard. */
export function useLiveRecord(rowSid: string, tableSid: string): { status: LiveStatus; last: RecordChange | null } {
  const queryClient = useQueryClient();
  const [last, setLast] = useState<RecordChange | null>(null);
  const status = useRecordStream(
    { tableSid, rowSid },
    (change) => {
      void queryClient.invalidateQueries({ queryKey: recordKey(rowSid) });
      setLast(change);
    },
    () => void queryClient.invalidateQueries({ queryKey: recordKey(rowSid) }),
  );
  return { status, last };
}
