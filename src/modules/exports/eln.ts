// A project as an `.eln` archive (issue 26; docs/eln.md), streamed: the zip (yazl) is
// written as the rows are read, 100 rows a batch, the next batch read only once the zip
// has reached the last row of the one before (so a slow reader slows the reading). The
// RO-Crate metadata describes every row, so its graph grows with the project: it is
// spooled to a temporary file as the rows pass and added last, streamed from that file.
import { PassThrough, Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type yazl from 'yazl';
import type { Db } from '../../db/client.js';
import type { FileStore } from '../../storage/store.js';
import {
  cellId, fileId, METADATA_FILE, personId, PUBLISHER_ID, ROW_GENRE, rowId, tableId, VERSIONS_FILE, versionsId, type Node,
} from './eln-format.js';
import { chainsOf, filesOf, peopleOf, projectRowBatch, tablesOf, type ElnTable } from './eln-repository.js';
import type { Cursor } from './repository.js';

const BATCH = 100;

export interface ElnSource {
  db: Db;
  store: FileStore;
  organizationSid: string;
  project: { sid: string; name: string; description: string };
  /** The archive's root folder. */
  root: string;
  publicUrl: string;
  now: Date;
}

/** Appends JSON texts to a temporary file, comma-separated. */
class Spool {
  private first = true;
  constructor(readonly file: string, private readonly out: WriteStream = createWriteStream(file)) {}
  async add(value: unknown) {
    const text = `${this.first ? '' : ',\n'}${JSON.stringify(value)}`;
    this.first = false;
    if (!this.out.write(text)) await once(this.out, 'drain');
  }
  async close() {
    this.out.end();
    await once(this.out, 'finish');
  }
}

/** The archive as a stream; its temporary files are removed when it ends or fails. */
export async function elnStream(source: ElnSource): Promise<Readable> {
  // yazl is imported on the first export, not at start-up.
  const { ZipFile } = (await import('yazl')).default;
  const dir = await mkdtemp(path.join(tmpdir(), 'records-eln-'));
  const zip = new ZipFile();
  const out = new PassThrough();
  zip.outputStream.pipe(out);
  const fail = (err: Error) => out.destroy(err);
  zip.on('error', fail);
  const closed = new Promise<void>((resolve) => out.on('close', resolve));
  void closed.then(() => rm(dir, { recursive: true, force: true }));
  writeArchive(source, zip, dir, closed, () => out.destroyed).catch(fail);
  return out;
}

async function writeArchive(source: ElnSource, zip: yazl.ZipFile, dir: string, closed: Promise<void>, stopped: () => boolean) {
  const graph = new Spool(path.join(dir, 'graph'));
  const parts = new Spool(path.join(dir, 'parts'));
  const tables = new Map<string, ElnTable>();
  const people = new Set<string>();
  const mtime = source.now;
  const entry = (id: string) => `${source.root}/${id.replace(/^\.\//, '')}`;
  let after: Cursor | null = null;
  for (;;) {
    const rows = await projectRowBatch(source.db, source.project.sid, after, BATCH);
    if (!rows.length) break;
    const sids = rows.map((r) => r.sid);
    const [chains, files] = await Promise.all([chainsOf(source.db, sids), filesOf(source.db, source.organizationSid, sids)]);
    const unknownTables = [...new Set(rows.map((r) => r.table_sid))].filter((sid) => !tables.has(sid));
    for (const t of await tablesOf(source.db, unknownTables)) tables.set(t.sid, t);
    let reached: Promise<void> = Promise.resolve();
    for (const row of rows) {
      const chain = chains.get(row.sid)!;
      if (!chain.length) continue;
      const head = chain[chain.length - 1];
      const table = tables.get(row.table_sid)!;
      const names = new Map(table.columns.map((c) => [c.sid, c.name]));
      const versionsText = Buffer.from(chain.map((v) => `${JSON.stringify(v)}\n`).join(''));
      const rowFiles = files.filter((f) => f.row_sid === row.sid);
      if (row.created_by) people.add(row.created_by);
      for (const v of chain) people.add(v.updated_by);
      // In the table's column order (a jsonb object's keys come in no order of ours), then columns since deleted.
      const order = new Map(table.columns.map((c, i) => [c.sid, i]));
      const cells = Object.entries(head.data.cells)
        .sort(([a], [b]) => (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
      const dataset: Node = {
        '@id': rowId(row.sid), '@type': 'Dataset', genre: ROW_GENRE, identifier: row.sid, name: head.data.name,
        ...(head.data.description ? { description: head.data.description } : {}),
        ...(row.created_by ? { author: { '@id': personId(row.created_by) } } : {}),
        dateCreated: row.date_created, dateModified: head.date_created, version: String(head.version),
        creativeWorkStatus: head.data.is_archived ? 'archived' : head.data.is_locked ? 'locked' : 'open',
        about: { '@id': tableId(table.sid) },
        variableMeasured: cells.map(([column]) => ({ '@id': cellId(row.sid, column) })),
        hasPart: [{ '@id': versionsId(row.sid) }, ...rowFiles.map((f) => ({ '@id': fileId(row.sid, f.sid, f.name) }))],
      };
      await parts.add({ '@id': rowId(row.sid) });
      await graph.add(dataset);
      for (const [column, value] of cells) {
        await graph.add({ '@id': cellId(row.sid, column), '@type': 'PropertyValue', propertyID: names.get(column) ?? column, identifier: column, value });
      }
      await graph.add({
        '@id': versionsId(row.sid), '@type': 'File', name: VERSIONS_FILE, encodingFormat: 'application/x-ndjson',
        description: "The row's version chain, one version a line, each hashed as docs/versions.md says (verify: records-cli verify-archive).",
        contentSize: String(versionsText.length), sha256: createHash('sha256').update(versionsText).digest('hex'),
      });
      // The zip asks for an entry's bytes when it reaches it: the batch's last such call tells how far it is.
      reached = new Promise<void>((resolve) => {
        zip.addReadStreamLazy(entry(versionsId(row.sid)), { compress: false, mtime, size: versionsText.length }, (cb) => {
          resolve();
          cb(null, Readable.from([versionsText]));
        });
      });
      for (const f of rowFiles) {
        const id = fileId(row.sid, f.sid, f.name);
        await graph.add({
          '@id': id, '@type': 'File', name: f.name, identifier: f.sid, encodingFormat: f.media_type, contentSize: String(f.size),
          sha256: f.sha256, dateCreated: f.date_created,
        });
        zip.addReadStreamLazy(entry(id), { compress: false, mtime, size: f.size }, (cb) => {
          source.store.read(f.sha256).then((s) => cb(null, s), (err: Error) => cb(err, undefined as never));
        });
      }
    }
    // Read on once the zip has reached this batch's last row (a slow reader of the answer holds it back).
    await Promise.race([reached, closed]);
    if (stopped()) return;
    after = { at: rows[rows.length - 1].at, sid: rows[rows.length - 1].sid };
    if (rows.length < BATCH) break;
  }
  for (const t of tables.values()) await graph.add({ '@id': tableId(t.sid), '@type': 'Thing', name: t.name, identifier: t.sid });
  const userSids = [...people];
  for (let i = 0; i < userSids.length; i += 1000) {
    for (const p of await peopleOf(source.db, userSids.slice(i, i + 1000))) {
      const name = `${p.first_name} ${p.last_name}`.trim();
      await graph.add({ '@id': personId(p.sid), '@type': 'Person', identifier: p.sid, ...(name ? { name } : {}), ...(p.first_name ? { givenName: p.first_name } : {}), ...(p.last_name ? { familyName: p.last_name } : {}) });
    }
  }
  await Promise.all([graph.close(), parts.close()]);
  const head = {
    '@id': METADATA_FILE, '@type': 'CreativeWork', about: { '@id': './' }, conformsTo: { '@id': 'https://w3id.org/ro/crate/1.1' },
    dateCreated: source.now.toISOString(), sdPublisher: { '@id': PUBLISHER_ID }, version: '1.0',
  };
  const publisher = { '@id': PUBLISHER_ID, '@type': 'Organization', name: 'Records Service', url: source.publicUrl };
  const root = {
    '@id': './', '@type': 'Dataset', name: source.project.name, identifier: source.project.sid,
    description: source.project.description || `The rows of the project ${source.project.name}, with their version chains.`,
    datePublished: source.now.toISOString(),
  };
  const rootText = JSON.stringify(root);
  async function* metadata() {
    yield Buffer.from(`{"@context":"https://w3id.org/ro/crate/1.1/context","@graph":[\n${JSON.stringify(head)},\n${JSON.stringify(publisher)},\n`);
    yield Buffer.from(`${rootText.slice(0, -1)},"hasPart":[`);
    yield* createReadStream(parts.file);
    yield Buffer.from(']}');
    let first = true;
    for await (const chunk of createReadStream(graph.file)) {
      if (first) yield Buffer.from(',\n');
      first = false;
      yield chunk as Buffer;
    }
    yield Buffer.from('\n]}\n');
  }
  zip.addReadStreamLazy(entry(`./${METADATA_FILE}`), { compress: true, mtime }, (cb) => cb(null, Readable.from(metadata())));
  zip.end();
}
