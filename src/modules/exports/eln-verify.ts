// The offline verifier of our .eln archives (`cli verify-archive file.eln`; docs/eln.md):
// from the archive alone, each row's version chain is re-hashed (docs/versions.md), its
// links and numbering checked, its head compared with the row's Dataset (version, name,
// cells), and every file's bytes with the SHA-256 and size the metadata gives. Each problem
// names the row and, where it lies in the chain, the version.
import { createHash } from 'node:crypto';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import type yauzl from 'yauzl';
import { versionHash } from '../versions/chain.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { METADATA_FILE, ROW_GENRE, VERSIONS_FILE, type Node } from './eln-format.js';

export interface ArchiveProblem {
  row: string | null;
  name: string | null;
  version: number | null;
  problem: string;
}

export interface ArchiveReport {
  archive: string;
  rows: number;
  versions: number;
  files: number;
  is_valid: boolean;
  problems: ArchiveProblem[];
}

/** The metadata names a file the archive does not hold. */
export class MissingEntry extends Error {
  constructor(readonly name: string) {
    super(`${name} is not in the archive`);
  }
}

/** A zip's entries by name, and a way to read one. */
export class Archive {
  private constructor(private readonly zip: yauzl.ZipFile, readonly entries: Map<string, yauzl.Entry>) {}

  static async open(file: string): Promise<Archive> {
    // yauzl is imported on the first archive read, not at start-up.
    const { default: yauzlModule } = await import('yauzl');
    return new Promise((resolve, reject) => {
      yauzlModule.open(file, { lazyEntries: true, autoClose: false }, (err, zip) => {
        if (err) return reject(err);
        const entries = new Map<string, yauzl.Entry>();
        zip.on('entry', (e: yauzl.Entry) => {
          // Some ELNs write "folder//file": a name is its path with each separator once.
          entries.set(e.fileName.replace(/\/+/g, '/'), e);
          zip.readEntry();
        });
        zip.on('end', () => resolve(new Archive(zip, entries)));
        zip.on('error', reject);
        zip.readEntry();
      });
    });
  }

  stream(name: string): Promise<Readable> {
    const e = this.entries.get(name.replace(/\/+/g, '/'));
    if (!e) return Promise.reject(new MissingEntry(name));
    return new Promise((resolve, reject) => this.zip.openReadStream(e, (err, s) => (err ? reject(err) : resolve(s))));
  }

  async read(name: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.stream(name)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** The SHA-256 (hex) and size of an entry's bytes, streamed. */
  async digest(name: string): Promise<{ sha256: string; size: number }> {
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of await this.stream(name)) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    return { sha256: hash.digest('hex'), size };
  }

  /** The one folder every entry lies in (the .eln's root), or null. */
  root(): string | null {
    const roots = new Set([...this.entries.keys()].map((n) => n.split('/')[0]));
    return roots.size === 1 ? [...roots][0] : null;
  }

  close() {
    this.zip.close();
  }
}

const ids = (value: unknown): string[] => (Array.isArray(value) ? value : value ? [value] : [])
  .map((v) => (v as { '@id'?: string })['@id']).filter((v): v is string => typeof v === 'string');

/** The graph of an archive's metadata, by @id. */
export async function readGraph(archive: Archive, root: string): Promise<Map<string, Node>> {
  const metadata = JSON.parse((await archive.read(`${root}/${METADATA_FILE}`)).toString('utf8')) as { '@graph': Node[] };
  return new Map(metadata['@graph'].map((n) => [n['@id'], n]));
}

/** Our rows' Datasets, in the order the root lists them. */
export function rowDatasets(graph: Map<string, Node>): Node[] {
  return ids(graph.get('./')?.hasPart).map((id) => graph.get(id)).filter((n): n is Node => !!n && n.genre === ROW_GENRE);
}

/** Verifies an archive; never throws for what is wrong inside it (that is a problem in the report). */
export async function verifyArchive(file: string): Promise<ArchiveReport> {
  const report: ArchiveReport = { archive: file, rows: 0, versions: 0, files: 0, is_valid: false, problems: [] };
  const problem = (row: Node | null, version: number | null, text: string) => report.problems.push({
    row: (row?.identifier as string) ?? null, name: (row?.name as string) ?? null, version, problem: text,
  });
  const archive = await Archive.open(file);
  try {
    const root = archive.root();
    if (!root) {
      problem(null, null, 'the archive does not hold exactly one root folder');
      return report;
    }
    let graph: Map<string, Node>;
    try {
      graph = await readGraph(archive, root);
    } catch (err) {
      problem(null, null, `${METADATA_FILE} cannot be read: ${(err as Error).message}`);
      return report;
    }
    const entryOf = (id: string) => `${root}/${id.replace(/^\.\//, '')}`;
    for (const row of rowDatasets(graph)) {
      report.rows += 1;
      const parts = ids(row.hasPart).map((id) => graph.get(id)).filter((n): n is Node => !!n);
      const versionsNode = parts.find((n) => n.name === VERSIONS_FILE);
      if (!versionsNode) {
        problem(row, null, `the row has no ${VERSIONS_FILE}`);
        continue;
      }
      await checkChain(archive, entryOf(versionsNode['@id']), row, graph, report, problem);
      for (const part of parts) {
        if (part === versionsNode) continue;
        report.files += 1;
        try {
          const { sha256, size } = await archive.digest(entryOf(part['@id']));
          if (sha256 !== part.sha256) problem(row, null, `the file ${part.name} (${part['@id']}): its bytes do not match its SHA-256`);
          else if (String(size) !== String(part.contentSize)) problem(row, null, `the file ${part.name}: ${size} bytes, not ${part.contentSize}`);
        } catch (err) {
          problem(row, null, `the file ${part.name} (${part['@id']}) cannot be read: ${(err as Error).message}`);
        }
      }
    }
    report.is_valid = report.problems.length === 0;
    return report;
  } finally {
    archive.close();
  }
}

interface StoredVersion {
  row: string; version: number; previousHash: string; hash: string; updated_by: string; date_created: string;
  data: { name: string; cells: Record<string, string> };
}

/** Checks one row's chain: each line's hash, the links, the numbering, and the head against the Dataset. */
async function checkChain(
  archive: Archive, name: string, row: Node, graph: Map<string, Node>, report: ArchiveReport,
  problem: (row: Node, version: number | null, text: string) => void,
) {
  // The chain is read a line at a time: a long history is never held whole.
  let lines: AsyncIterable<string>;
  try {
    lines = readline.createInterface({ input: await archive.stream(name), crlfDelay: Infinity });
  } catch (err) {
    problem(row, null, `${VERSIONS_FILE} cannot be read: ${(err as Error).message}`);
    return;
  }
  let previousHash = '';
  let head: StoredVersion | null = null;
  let expected = 0;
  try {
    for await (const line of lines) {
      expected += 1;
      report.versions += 1;
      let v: StoredVersion;
      try {
        v = JSON.parse(line) as StoredVersion;
      } catch {
        problem(row, expected, `version ${expected} (line ${expected} of ${VERSIONS_FILE}) is not valid JSON`);
        previousHash = '';
        continue;
      }
      if (v.version !== expected) problem(row, expected, `version ${expected} is missing (line ${expected} holds version ${v.version})`);
      if (v.row !== row.identifier) problem(row, expected, `version ${expected} belongs to the row ${v.row}`);
      if (v.previousHash !== previousHash) problem(row, v.version, `version ${v.version}: previousHash does not match the hash of the version before`);
      const recomputed = versionHash(v);
      if (recomputed !== v.hash) problem(row, v.version, `version ${v.version}: the hash does not match its content`);
      previousHash = v.hash;
      head = v;
    }
  } catch (err) {
    problem(row, null, `${VERSIONS_FILE} cannot be read: ${(err as Error).message}`);
    return;
  }
  if (!head) {
    problem(row, null, 'the row has no version');
    return;
  }
  if (String(head.version) !== String(row.version)) problem(row, head.version, `the row's head is version ${row.version} but the chain ends at ${head.version}`);
  if (head.data.name !== row.name) problem(row, head.version, `the row's name differs from its last version's (${head.version})`);
  const cells = Object.fromEntries(ids(row.variableMeasured).map((id) => graph.get(id)).filter((n): n is Node => !!n)
    .map((n) => [n.identifier as string, n.value as string]));
  if (canonicalJson(cells) !== canonicalJson(head.data.cells ?? {})) {
    problem(row, head.version, `the row's cells differ from its last version's (${head.version})`);
  }
}
