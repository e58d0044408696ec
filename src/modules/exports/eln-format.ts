// The shape of our .eln archives (issue 26; docs/eln.md): an RO-Crate 1.1 in a zip, as the
// ELN Consortium specifies, one root folder; each row a Dataset `./rows/<sid>/` with its
// cells as PropertyValues, its version chain as `versions.ndjson` (one version a line, as
// docs/versions.md hashes it) and the files its cells name. Shared by the writer, the
// offline verifier and the importer.

export const METADATA_FILE = 'ro-crate-metadata.json';
export const VERSIONS_FILE = 'versions.ndjson';
/** `genre` of a row's Dataset: how the verifier and the importer tell our rows from other datasets. */
export const ROW_GENRE = 'record';
export const PUBLISHER_ID = '#publisher';

export const rowId = (rowSid: string) => `./rows/${rowSid}/`;
export const versionsId = (rowSid: string) => `./rows/${rowSid}/${VERSIONS_FILE}`;
export const cellId = (rowSid: string, columnSid: string) => `#cell-${rowSid}-${columnSid}`;
export const personId = (userSid: string) => `#person-${userSid}`;
export const tableId = (tableSid: string) => `#table-${tableSid}`;

/** A file's path in the archive: its sid and a name safe in any file system. */
export function fileId(rowSid: string, fileSid: string, name: string): string {
  const safe = name.normalize('NFC').replace(/[^\p{L}\p{N}._ -]/gu, '_').replace(/^[.\s]+/, '').slice(0, 100) || 'file';
  return `./rows/${rowSid}/${fileSid}-${safe}`;
}

/** A graph node: what JSON-LD says of one thing. */
export type Node = { '@id': string; '@type': string | string[] } & Record<string, unknown>;

/** The root folder's name: the project's, without what a file system refuses, and the date. */
export function rootFolder(projectName: string, date: string): string {
  const base = projectName.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, ' ').trim().slice(0, 100) || 'project';
  return `${base} ${date}`;
}
