// A TCP proxy in front of PostgreSQL that reads the frontend side of the wire protocol
// and records every statement the service sends: how many queries, and how many round
// trips (each simple Query, and each Sync closing an extended-protocol batch, waits for
// the server's ReadyForQuery). The service prepares its statements once per connection
// and then only binds them by name, so texts are kept by statement name per connection.
import net from 'node:net';

export interface Statement {
  /** 'simple' (a Query message) or 'extended' (Parse … Sync) */
  kind: 'simple' | 'extended';
  sql: string;
  /** the values bound to $1, $2 … (text format; null for NULL or a binary value) */
  params?: (string | null)[];
  /** the round trip it was sent in (an index into `trips`) */
  trip?: number;
}

/** One round trip: from the Query or Sync message to the server's ReadyForQuery. */
export interface Trip {
  /** milliseconds until ReadyForQuery (NaN while waiting) */
  ms: number;
}

export class WireCounter {
  private server: net.Server;
  private sockets = new Set<net.Socket>();
  /** Every statement since the last reset, in order. */
  statements: Statement[] = [];
  /** Round trips since the last reset: Query messages plus Sync messages. */
  roundTrips = 0;
  /** Every round trip since the last reset, timed: what PostgreSQL (with the loopback) took. */
  trips: Trip[] = [];

  private constructor(server: net.Server, readonly port: number) {
    this.server = server;
  }

  /** Listens on a free port of 127.0.0.1 and forwards each connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<WireCounter> {
    let counter!: WireCounter;
    const server = net.createServer((client) => counter.accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    counter = new WireCounter(server, (server.address() as net.AddressInfo).port);
    return counter;
  }

  reset(): void {
    this.statements = [];
    this.roundTrips = 0;
    this.trips = [];
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, target: { host: string; port: number }) {
    const upstream = net.connect(target.port, target.host);
    this.sockets.add(client);
    this.sockets.add(upstream);
    let buffer = Buffer.alloc(0);
    let started = false;
    // Statement texts by name ('' is the unnamed one), and what the next Execute runs.
    const prepared = new Map<string, string>();
    let bound: { sql: string; params: (string | null)[] } = { sql: '', params: [] };
    // Round trips of this connection waiting for their ReadyForQuery, oldest first.
    const waiting: Array<{ trip: Trip; t0: bigint }> = [];
    let sslAnswerPending = false;
    const openTrip = () => {
      const trip: Trip = { ms: NaN };
      this.trips.push(trip);
      waiting.push({ trip, t0: process.hrtime.bigint() });
      return this.trips.length - 1;
    };
    const pendingExtended: number[] = []; // statements executed since the last Sync: theirs is the next trip
    client.on('data', (chunk) => {
      upstream.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          // The startup packet (or an SSL request) has no type byte.
          if (buffer.length < 4) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          const code = buffer.readInt32BE(4);
          buffer = buffer.subarray(length);
          if (code !== 80877103) started = true; // 80877103: SSLRequest, answered before the real startup
          else sslAnswerPending = true;
          continue;
        }
        if (buffer.length < 5) break;
        const type = String.fromCharCode(buffer[0]);
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) break;
        const payload = buffer.subarray(5, 1 + length);
        buffer = buffer.subarray(1 + length);
        if (type === 'Q') {
          this.statements.push({ kind: 'simple', sql: cstring(payload, 0), trip: openTrip() });
          this.roundTrips += 1;
        } else if (type === 'P') {
          const name = cstring(payload, 0);
          prepared.set(name, cstring(payload, Buffer.byteLength(name) + 1));
        } else if (type === 'B') {
          bound = bind(payload, prepared);
        } else if (type === 'E') {
          this.statements.push({ kind: 'extended', sql: bound.sql, params: bound.params });
          pendingExtended.push(this.statements.length - 1);
        } else if (type === 'S') {
          this.roundTrips += 1;
          const trip = openTrip();
          for (const index of pendingExtended.splice(0)) this.statements[index].trip = trip;
        }
      }
    });
    // The server's side, read only for ReadyForQuery ('Z'), which ends a round trip.
    let answer = Buffer.alloc(0);
    upstream.on('data', (chunk) => {
      client.write(chunk);
      answer = Buffer.concat([answer, chunk]);
      if (sslAnswerPending && answer.length >= 1) {
        answer = answer.subarray(1); // 'N' or 'S': one byte, no length
        sslAnswerPending = false;
      }
      while (answer.length >= 5) {
        const length = answer.readInt32BE(1);
        if (answer.length < 1 + length) break;
        if (answer[0] === 0x5a /* Z */ && started) {
          const done = waiting.shift();
          if (done) done.trip.ms = Number(process.hrtime.bigint() - done.t0) / 1e6;
        }
        answer = answer.subarray(1 + length);
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  }
}

/** A Bind message: the statement it binds and its parameter values. */
function bind(payload: Buffer, prepared: Map<string, string>): { sql: string; params: (string | null)[] } {
  const portal = cstring(payload, 0);
  let at = Buffer.byteLength(portal) + 1;
  const name = cstring(payload, at);
  at += Buffer.byteLength(name) + 1;
  const formats: number[] = [];
  const formatCount = payload.readInt16BE(at);
  at += 2;
  for (let i = 0; i < formatCount; i += 1) formats.push(payload.readInt16BE(at + 2 * i));
  at += 2 * formatCount;
  const params: (string | null)[] = [];
  const count = payload.readInt16BE(at);
  at += 2;
  for (let i = 0; i < count; i += 1) {
    const length = payload.readInt32BE(at);
    at += 4;
    const binary = (formats.length === 1 ? formats[0] : formats[i] ?? 0) === 1;
    params.push(length < 0 || binary ? null : payload.toString('utf8', at, at + length));
    at += Math.max(length, 0);
  }
  return { sql: prepared.get(name) ?? '', params };
}

function cstring(buffer: Buffer, offset: number): string {
  const end = buffer.indexOf(0, offset);
  return buffer.toString('utf8', offset, end < 0 ? buffer.length : end);
}
