// Importing an .eln archive into a table and project (issue 26; docs/eln.md, "Importing an
// .eln"): each Dataset the root lists becomes a new row — ours (genre "record") with its
// cells by column sid or name, other ELNs' (eLabFTW's experiments and resources) with their
// PropertyValues by column name and their text as the description — and each File it holds
// a file of the organization. Our archives must verify first (cli verify-archive's check);
// each new row's version 1 names the row, version and hash it was imported from.
import type { AppContext } from '../../context.js';
import type { Membership } from '../../core/access.js';
import { ApiError, errors } from '../../core/errors.js';
import { OverLimit } from '../files/ingest.js';
import { formatMoney } from '../../core/sql.js';
import { debitCredits } from '../credits/service.js';
import { deleteFile, uploadFile } from '../files/service.js';
import type { Actor } from '../../core/auth.js';
import { Archive, MissingEntry, readGraph, verifyArchive } from '../exports/eln-verify.js';
import { ROW_GENRE, VERSIONS_FILE, type Node } from '../exports/eln-format.js';
import { balanceCents, importColumns, refreshStatistics } from './repository.js';
import { LIMITS, type ImportColumn, type Plan } from './plan.js';
import { createRows } from './write.js';
import { FILE_KIND, filesOfCellData } from '../files/cells.js';

export interface ElnImportSummary {
  created: number;
  files: number;
  price: string;
  rows: { sid: string; name: string; source: string }[];
  /** Properties of the archive that no column of the table is named after (left out). */
  unmapped: string[];
}

const ids = (value: unknown): string[] => (Array.isArray(value) ? value : value ? [value] : [])
  .map((v) => (v as { '@id'?: string })['@id']).filter((v): v is string => typeof v === 'string');

/** The column a property goes to: ours by sid, then anyone's by name. */
function columnFor(columns: ImportColumn[], node: Node): ImportColumn | undefined {
  return columns.find((c) => c.sid === node.identifier) ?? columns.find((c) => c.name === node.propertyID);
}

export async function importEln(
  ctx: AppContext, membership: Membership, actor: Actor, target: { tableSid: string; projectSid: string }, file: string,
): Promise<ElnImportSummary> {
  let report;
  try {
    report = await verifyArchive(file);
  } catch (err) {
    throw errors.fields({ file: [`The file cannot be read as an .eln (zip) archive: ${(err as Error).message}`] });
  }
  const bad = report.problems[0];
  if (bad) {
    throw errors.fields({ file: [`The archive does not verify: ${bad.row ? `row ${bad.row}${bad.version ? `, version ${bad.version}` : ''}: ` : ''}${bad.problem}`] });
  }
  const archive = await Archive.open(file);
  const made: string[] = [];
  try {
    const root = archive.root()!;
    const graph = await readGraph(archive, root);
    const columns = await importColumns(ctx.db, target.tableSid);
    const filesColumn = columns.find((c) => c.name.toLowerCase() === 'files');
    const unmapped = new Set<string>();
    const datasets = ids(graph.get('./')?.hasPart).map((id) => graph.get(id)).filter((n): n is Node => !!n && [n['@type']].flat().includes('Dataset'));
    const plans: Extract<Plan, { kind: 'create' }>[] = [];
    let filesCount = 0;
    const sources: { source: string; name: string }[] = [];
    for (const [i, node] of datasets.entries()) {
      const ours = node.genre === ROW_GENRE;
      const cells = new Map<string, { column: ImportColumn; data: string }>();
      for (const property of ids(node.variableMeasured).map((id) => graph.get(id)).filter((n): n is Node => !!n)) {
        const column = columnFor(columns, property);
        const value = typeof property.value === 'string' ? property.value : JSON.stringify(property.value ?? '');
        if (column) cells.set(column.sid, { column, data: value });
        else unmapped.add(String(property.propertyID ?? property['@id']));
      }
      const attached: string[] = [];
      const renamed = new Map<string, string>();
      for (const part of ids(node.hasPart).map((id) => graph.get(id)).filter((n): n is Node => !!n && [n['@type']].flat().includes('File'))) {
        if (ours && part.name === VERSIONS_FILE) continue;
        const stream = await archive.stream(`${root}/${part['@id'].replace(/^\.\//, '')}`).catch((err: Error) => {
          throw err instanceof MissingEntry ? errors.fields({ file: [`The archive's metadata names ${part['@id']}, which the archive does not hold.`] }) : err;
        });
        const stored = await uploadFile(ctx, membership, String(part.name ?? 'file').slice(0, 1000) || 'file', stream).catch((err: Error) => {
          if (err instanceof OverLimit) throw new ApiError(413, { detail: `The file ${String(part.name)} does not fit: FILE_MAX_BYTES or the organization's FILES_QUOTA_BYTES.` });
          throw err;
        });
        made.push(stored.sid);
        filesCount += 1;
        attached.push(stored.sid);
        if (typeof part.identifier === 'string') renamed.set(part.identifier, stored.sid);
        // Our cells name files by sid: they name the new file now.
        for (const cell of cells.values()) if (part.identifier && cell.data === part.identifier) cell.data = stored.sid;
      }
      // A file cell lists its files' descriptors: it names the archive's copies now (the same bytes and SHA-256, new sids).
      for (const cell of cells.values()) {
        if (cell.column.kind !== FILE_KIND) continue;
        const sids = filesOfCellData(cell.data).map((f) => {
          const now = renamed.get(f.sid);
          if (!now) throw errors.fields({ file: [`The row ${String(node.identifier ?? node['@id'])}'s cell of ${cell.column.name} lists the file ${f.name} (${f.sid}), which the archive does not hold.`] });
          return now;
        });
        cell.data = sids.length ? JSON.stringify(sids) : '';
      }
      if (!ours && attached.length && filesColumn) {
        cells.set(filesColumn.sid, { column: filesColumn, data: filesColumn.kind === FILE_KIND ? JSON.stringify(attached) : attached.join('\n') });
      }
      const text = typeof node.description === 'string' ? node.description : typeof node.text === 'string' ? node.text : '';
      const written = [...cells.values()].filter((c) => c.data !== '').map((c) => ({ ...c, data: c.data.slice(0, LIMITS.data) }));
      const name = (String(node.name ?? '').trim() || 'Untitled').slice(0, LIMITS.name);
      plans.push({
        kind: 'create', line: i + 1, name, description: text.slice(0, LIMITS.description), cells: written,
        cents: written.reduce((n, c) => n + c.column.cents, 0),
      });
      const version = ours ? `, version ${node.version}` : '';
      sources.push({ source: `${String(node.identifier ?? node['@id'])}${version}`, name });
    }
    const cents = plans.reduce((n, p) => n + p.cents, 0);
    const balance = await balanceCents(ctx.db, membership.organizationSid);
    if (cents > balance) {
      throw errors.fields({ file: [`Not enough credits: the import costs ${formatMoney((cents / 100).toFixed(2))} and the organization has ${formatMoney((balance / 100).toFixed(2))}.`] });
    }
    const created = await ctx.db.transaction(async (tx) => {
      const sids = await createRows({ tx, organizationSid: membership.organizationSid, ...target, userSid: actor.userSid }, plans, (i) => `Created the row (imported from ${sources[i].source})`);
      if (cents > 0 && !(await debitCredits(tx, { organizationSid: membership.organizationSid, amount: (cents / 100).toFixed(2), reason: 'import of an .eln archive', userSid: actor.userSid }))) {
        throw errors.fields({ file: ['Not enough credits for the import.'] });
      }
      return sids;
    });
    made.length = 0;
    await refreshStatistics(ctx.db, created.length);
    return {
      created: created.length, files: filesCount, price: formatMoney((cents / 100).toFixed(2)),
      rows: created.map((sid, i) => ({ sid, name: plans[i].name, source: sources[i].source })), unmapped: [...unmapped].sort(),
    };
  } finally {
    archive.close();
    // Files of an import that did not happen go again.
    for (const sid of made) await deleteFile(ctx, actor, sid).catch(() => undefined);
  }
}
