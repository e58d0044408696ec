// Which version added, replaced or removed which file: read from the versions' data (each
// snapshots the file cells' descriptors), oldest first.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../../lib/api/client';
import { filesOfCell, type CellFile } from './files';

/** What one version did to the files of one cell. */
export interface FileEvent {
  version: number;
  column: string;
  kind: 'added' | 'replaced' | 'removed';
  file: CellFile;
  /** For `replaced`: the file it took the place of. */
  previous?: CellFile;
}

const PAGE_SIZE = 100;
/** At most this many versions are read for the files' story (a row of more says so). */
export const MAX_VERSIONS = 2000;

type VersionData = { cells?: Record<string, unknown> } | null;

/** The events between consecutive versions' file cells. */
export function fileEvents(versions: { version: number; data: unknown }[]): FileEvent[] {
  const events: FileEvent[] = [];
  let before = new Map<string, CellFile[]>();
  for (const v of versions) {
    const now = new Map<string, CellFile[]>();
    for (const [column, value] of Object.entries((v.data as VersionData)?.cells ?? {})) {
      const files = typeof value === 'string' && value.startsWith('[') ? filesOfCell(value) : [];
      if (files.length) now.set(column, files);
    }
    for (const column of new Set([...before.keys(), ...now.keys()])) {
      const old = before.get(column) ?? [];
      const cur = now.get(column) ?? [];
      const oldSids = new Set(old.map((f) => f.sid));
      const curSids = new Set(cur.map((f) => f.sid));
      const gone = old.filter((f) => !curSids.has(f.sid));
      for (const [i, file] of cur.entries()) {
        if (oldSids.has(file.sid)) continue;
        // In the place of a file that went: replaced.
        const at = old[i] && !curSids.has(old[i].sid) ? old[i] : undefined;
        if (at) gone.splice(gone.indexOf(at), 1);
        events.push(at ? { version: v.version, column, kind: 'replaced', file, previous: at } : { version: v.version, column, kind: 'added', file });
      }
      for (const file of gone) events.push({ version: v.version, column, kind: 'removed', file });
    }
    before = now;
  }
  return events;
}

/** The row's versions (with data, oldest first, up to MAX_VERSIONS) as file events. */
export function useFileEvents(orgSid: string, rowSid: string) {
  return useQuery({
    queryKey: ['versions', rowSid, 'files'],
    queryFn: async () => {
      const versions: { version: number; data: unknown }[] = [];
      let more = true;
      for (let page = 1; more && versions.length < MAX_VERSIONS; page += 1) {
        const found = await unwrap(
          api.GET('/tables/version/list/{level}/{sid}/detail/', {
            params: { path: { level: 'organization', sid: orgSid }, query: { row__sid: rowSid, page, page_size: PAGE_SIZE } },
          }),
        );
        for (const item of found.results) {
          if (item && typeof item === 'object' && 'version' in item && 'data' in item) versions.push({ version: item.version as number, data: item.data });
        }
        more = found.next !== null;
      }
      return { events: fileEvents(versions), truncated: more };
    },
  });
}
