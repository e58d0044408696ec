// The ELN Consortium's checks of an .eln (test/fixtures/eln/README.md) that need no Python:
// its tests/checks.py's checkArchiveStructure, checkSchema (its JSON Schema, vendored) and
// checkParamMetadataJson's errors, rewritten here; and reading a zip's entries (yauzl).
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import yauzl from 'yauzl';

const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'eln');
export const ELABFTW_EXAMPLE = path.join(FIXTURES, 'elabftw-export.eln');

/** Every entry of a zip with its bytes. */
export async function unzip(file: string): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (e, z) => (e ? reject(e) : resolve(z))));
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          entries.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
        stream.on('error', reject);
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

/** checkArchiveStructure: one root folder holds every entry. Returns the errors. */
export function archiveStructureErrors(names: string[]): string[] {
  const outside = names.filter((n) => {
    const parts = n.split('/').filter(Boolean);
    return !parts.length || n.startsWith('/') || parts.includes('..') || (parts.length === 1 && !n.endsWith('/'));
  });
  const roots = new Set(names.map((n) => n.split('/')[0]));
  return [
    ...(outside.length ? [`entries outside the root folder: ${outside.join(', ')}`] : []),
    ...(roots.size !== 1 ? [`${roots.size} root folders`] : []),
  ];
}

/** checkSchema: the consortium's JSON Schema of ro-crate-metadata.json. Returns the errors. */
export function schemaErrors(metadata: unknown): string[] {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(FIXTURES, 'schema.json'), 'utf8')));
  return validate(metadata) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

type Node = Record<string, any>;

/** checkParamMetadataJson's errors: the metadata node's version and sdPublisher; each part once, a Dataset's and a File's name; keywords a string. */
export function parameterErrors(metadata: { '@graph': Node[] }): string[] {
  const graph = metadata['@graph'];
  const errors: string[] = [];
  const meta = graph.filter((n) => n['@id'] === 'ro-crate-metadata.json');
  if (meta.length !== 1) errors.push('ro-crate-metadata.json does not uniquely exist');
  else for (const key of ['version', 'sdPublisher']) if (!(key in meta[0])) errors.push(`"${key}" not in ro-crate-metadata.json`);
  const visit = (id: string) => {
    const nodes = graph.filter((n) => n['@id'] === id);
    if (nodes.length !== 1) {
      errors.push(`${id} occurs ${nodes.length} times`);
      return;
    }
    const node = nodes[0];
    const types = [node['@type']].flat();
    if ((types.includes('Dataset') || types.includes('File')) && !('name' in node)) errors.push(`"name" not in ${id}`);
    if (Array.isArray(node.keywords)) errors.push(`${id} has an array of keywords`);
    for (const part of node.hasPart ?? []) visit(part['@id']);
  };
  const root = graph.find((n) => n['@id'] === './');
  if (!root) errors.push('no root dataset');
  else for (const part of root.hasPart ?? []) visit(part['@id']);
  return errors;
}

/** The metadata of an unzipped .eln. */
export function metadataOf(entries: Map<string, Buffer>): { '@graph': Node[] } & Node {
  const name = [...entries.keys()].find((n) => n.endsWith('/ro-crate-metadata.json'))!;
  return JSON.parse(entries.get(name)!.toString('utf8'));
}
