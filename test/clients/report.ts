// What a walkthrough with a generated client reports back to its test
// (test/modules/generated-clients.test.ts), which checks it against the server.

export interface Walked {
  email: string;
  organization: string;
  row: string;
  column: string;
  cell: string;
  /** The ETags of the cell: from its create (201), its GET, and the If-Match PATCH's answer. */
  etags: { created: string; read: string; patched: string };
  /** The 412 of the PATCH sent again with the create's ETag. */
  stale: { status: number; detail: string };
  /** The row's versions as the list gives them (number and activity), and as row data (dataonly). */
  versions: { version: number; activity: string }[];
  data: string[];
  /** The caller's personnel record and the notification they sent themselves, as the lists give them. */
  personnel: { sid: string; email: string; is_administrator: boolean };
  inbox: { name: string; is_read: boolean }[];
}

/** The `detail` of an error body, or '' (the error bodies are `{"detail"}`, field errors or plain text). */
export function detailOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'detail' in error && typeof error.detail === 'string' ? error.detail : '';
}

/** Stops the walk with what the server answered. */
export function refused(step: string, response: Response, error: unknown): Error {
  return new Error(`${step}: ${response.status} ${JSON.stringify(error)}`);
}
