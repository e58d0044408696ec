// Importing a CSV or XLSX file into a table's rows of a project (issue 26): the file is the
// request's body (sent as it is, never read into the page), the mapping a JSON query
// parameter; a dry run checks, a run writes, with an Idempotency-Key so its progress can be
// asked for (GET /tables/row/import/progress/?key=) and a retry does not import twice.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../lib/api/client';
import type { components } from '../../../lib/api/schema';

export type ImportSummary = components['schemas']['ImportSummary'];
export type ImportProgress = components['schemas']['ImportProgress'];

/** A header field's target: sid, name, description, a column's sid, or '' (left out). */
export type ImportMapping = Record<string, string>;

export interface ImportRequest {
  file: File;
  dryRun: boolean;
  mapping?: ImportMapping;
  /** The column whose data names an existing row ('' or undefined: sid, when a field maps to it). */
  key?: string;
  /** The run's Idempotency-Key (progress is asked for by it). */
  idempotencyKey?: string;
}

/** csv or xlsx, by the file's name (the browser's media type for CSV varies). */
export function importFormat(file: File): 'csv' | 'xlsx' | null {
  const name = file.name.toLowerCase();
  if (name.endsWith('.csv') || name.endsWith('.txt')) return 'csv';
  if (name.endsWith('.xlsx')) return 'xlsx';
  return null;
}

/** Checks (dryRun) or runs an import; the summary. */
export function useImportRows(tableSid: string, projectSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ file, dryRun, mapping, key, idempotencyKey }: ImportRequest) =>
      unwrap(
        api.POST('/tables/row/import/table/{sid}/', {
          params: {
            path: { sid: tableSid },
            query: {
              project__sid: projectSid,
              format: importFormat(file) ?? 'csv',
              ...(dryRun ? { dry_run: true } : {}),
              ...(mapping ? { mapping: JSON.stringify(mapping) } : {}),
              ...(key ? { key } : {}),
            },
            header: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : undefined,
          },
          // The file as it is: the server parses it as it arrives.
          body: file as unknown as string,
          bodySerializer: (body: unknown) => body as BodyInit,
          headers: { 'Content-Type': 'application/octet-stream' },
        }),
      ),
    // The grid hears the rows live; its pages are read again all the same, once a run is done.
    onSuccess: (summary) => {
      if (!summary.dry_run) void queryClient.invalidateQueries();
    },
  });
}

/** How far the run with `key` is, asked every half second while `running`. */
export function useImportProgress(key: string | null, running: boolean) {
  return useQuery({
    queryKey: ['import-progress', key],
    enabled: Boolean(key) && running,
    refetchInterval: running ? 500 : false,
    retry: false,
    queryFn: () => unwrap(api.GET('/tables/row/import/progress/', { params: { query: { key: key! } } })),
  });
}
