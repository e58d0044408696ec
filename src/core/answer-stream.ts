// Pages written as they are read (issue 21; docs/decisions.md, "Answers are written as they
// are read"). A list whose records can be large (row data, JSON settings, messages) reads
// its page in reads of at most ANSWER_MAX_BYTES of records at their largest (a `sized`
// list: by their real sizes, as the database counts them in the read itself), and writes
// each read to the socket before the next one starts, after what was written has left
// the process (the socket's backpressure): whatever a page's bytes, the process holds
// one read. The envelope is the same bytes as a page built whole: its head (page_size …
// add_permission, with `count` from the first read) is written first, then the results,
// each through the shape's own serializer. A page that fits one read is answered whole,
// as before (the fast path). An error found before the first byte is the API's own
// error answer; one found later ends the connection without the closing bracket, so a
// client never takes a cut answer for a whole one.
import { once } from 'node:events';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { pageEnvelope, type PageRequest } from './pagination.js';
import { AnswerHold, heavyTurn, type WorkBudget } from './heavy-work.js';

/** What a list gives the writer: its first read (with the count) and the reads after it. */
export interface PageSource {
  page: PageRequest;
  /** The most one record of this answer can be, as JSON; undefined: small records, the page is one read. */
  recordBytes?: number;
  /**
   * The records of one read ([offset, offset + limit) of the list) with the list's count and
   * add_permission; `records`, when the list knows it, is how many records the page holds
   * (then a later read that finds fewer than asked, a record deleted meanwhile, does not end the page).
   */
  first: (read: PageRequest) => Promise<{ results: unknown[]; count: number; addPermission: boolean; records?: number }>;
  /** The records of a later read. */
  more: (read: PageRequest) => Promise<unknown[]>;
  /** The schema of one result (fast-json-stringify, as the page's own serializer writes it); none: JSON.stringify. */
  item?: TSchema;
  /** Send the whole-page answer as JSON text rather than through the route's schema (versions' `dataonly`). */
  raw?: boolean;
  /**
   * The source's reads honour `maxBytes` (PageRequest): a read takes as many records as fit
   * by their real sizes (always one), not as many as fit at their largest, so a page of
   * small records that could be large is one read. The first read must tell `records`.
   */
  sized?: boolean;
}

export interface AnswerLimits {
  publicUrl: string | null;
  /** The most records one read holds at their largest: ANSWER_MAX_BYTES. */
  readBytes: number;
  budget: WorkBudget;
}

const compile = SerializerSelector()({}, undefined);

/** The text a streamed page gathers into one socket write, and serializes between two turns of the heavy work. */
const CHUNK_BYTES = 64 * 1024;
const serializers = new WeakMap<TSchema, (value: unknown) => string>();

function serializerOf(schema: TSchema | undefined): (value: unknown) => string {
  if (!schema) return (value) => JSON.stringify(value);
  let serialize = serializers.get(schema);
  if (!serialize) {
    serialize = compile({ schema, method: 'GET', url: '/', httpStatus: '200' }) as (value: unknown) => string;
    serializers.set(schema, serialize);
  }
  return serialize;
}

/** How many records one read of `source` takes. */
export function recordsPerRead(source: Pick<PageSource, 'page' | 'recordBytes'>, readBytes: number): number {
  if (!source.recordBytes) return source.page.size;
  return Math.max(1, Math.min(source.page.size, Math.floor(readBytes / source.recordBytes)));
}

/** Resolves when `res` has written out what it buffered, or has closed. */
async function drained(res: FastifyReply['raw']): Promise<void> {
  if (!res.writableNeedDrain || res.destroyed) return;
  const ac = new AbortController();
  await Promise.race([once(res, 'drain', { signal: ac.signal }), once(res, 'close', { signal: ac.signal })]).catch(() => {});
  ac.abort();
}

/**
 * Answers a page of `source`: the page envelope, whole when it fits one read, otherwise
 * written read by read. A list of large records reserves one read's worst case from the
 * process's heavy-work budget before each read (503 when it is spent before the first),
 * held until that read has been written out (a page of one read: until its answer is).
 */
export async function answerPage(request: FastifyRequest, reply: FastifyReply, limits: AnswerLimits, source: PageSource) {
  const { page } = source;
  // A sized read asks for the whole page and gets what fits in ANSWER_MAX_BYTES (at least
  // one record, so it reserves one record's worst case when that is more).
  const sized = source.sized === true && source.recordBytes !== undefined;
  const perRead = sized ? page.size : recordsPerRead(source, limits.readBytes);
  const readBytes = sized ? Math.max(limits.readBytes, source.recordBytes!) : perRead * (source.recordBytes ?? 0);
  const bound = sized ? { maxBytes: limits.readBytes } : {};
  const hold = readBytes > 0 ? new AnswerHold(limits.budget, reply) : null;
  await hold?.take(readBytes);
  const { results, count, addPermission, records } = await source.first({ ...page, limit: perRead, ...bound });
  const envelope = pageEnvelope(request, limits.publicUrl, page, count, results, addPermission);
  const end = Math.min(page.size, records ?? page.size);
  if (sized ? results.length >= end || results.length === 0 : perRead >= end || (records === undefined && results.length < perRead)) {
    if (source.raw) return reply.type('application/json; charset=utf-8').send(JSON.stringify(envelope));
    return envelope;
  }
  const serialize = serializerOf(source.raw ? undefined : source.item);
  const { results: _first, ...head } = envelope;
  const res = reply.raw;
  // A read's records are serialized in turns of the process's heavy work (heavyTurn: after
  // each CHUNK_BYTES of text other requests run), then let go: from there the answer holds
  // the read's text, not its worst case (AnswerHold.keepOnly), and a client that stops
  // reading keeps only that. The text goes out, small records together in chunks of up to
  // CHUNK_BYTES (a socket write each chunk: a page of small rows is a write or two, not two a
  // record), a large one as the string its serializer made, not a copy. Once it has left the
  // process the read's reservation goes back, and the next read waits its turn for one.
  let firstRead: unknown[] | null = results;
  async function* body() {
    let read = firstRead!;
    firstRead = null;
    let position = sized ? read.length : perRead;
    let sent = 0;
    let pending = `${JSON.stringify(head).slice(0, -1)},"results":[`;
    let sinceTurn = 0;
    for (;;) {
      const texts: string[] = [];
      let bytes = Buffer.byteLength(pending);
      for (const record of read) {
        if (sinceTurn >= CHUNK_BYTES) {
          sinceTurn = 0;
          await heavyTurn();
          if (res.destroyed) return;
        }
        const text = serialize(record);
        sinceTurn += text.length;
        bytes += Buffer.byteLength(text);
        texts.push(text);
      }
      const last = position >= end || (sized ? read.length === 0 : records === undefined && read.length < perRead);
      const cursor = (read as { cursor?: number }).cursor;
      read = [];
      hold?.keepOnly(Math.min(readBytes, bytes));
      for (let i = 0; i < texts.length; i += 1) {
        const text = texts[i]!;
        texts[i] = '';
        if (sent++) pending += ',';
        if (text.length >= CHUNK_BYTES) {
          if (pending) yield pending;
          pending = '';
          yield text;
        } else {
          pending += text;
          if (pending.length >= CHUNK_BYTES) {
            yield pending;
            pending = '';
          }
        }
      }
      if (last) break;
      if (pending) {
        yield pending;
        pending = '';
      }
      await drained(res);
      if (res.destroyed) return;
      if (hold) {
        try {
          // The answer has begun: the next read waits as long as it takes (no 503 now).
          await hold.take(readBytes, true);
        } catch {
          return; // the client left while waiting
        }
      }
      const limit = Math.min(perRead, end - position);
      read = await source.more({ ...page, offset: page.offset + position, limit, ...bound, ...(cursor === undefined ? {} : { after: cursor }) });
      position += sized ? read.length : limit;
    }
    yield `${pending}]}`;
  }
  return reply.type('application/json; charset=utf-8').send(Readable.from(body(), { objectMode: false, highWaterMark: 1 }));
}
