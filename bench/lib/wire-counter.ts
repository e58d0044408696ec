// A TCP proxy in front of PostgreSQL that reads the frontend side of the wire protocol
// and records every statement the service sends: how many queries, and how many round
// trips (each simple Query, and each Sync closing an extended-protocol batch, waits for
// the server's ReadyForQuery).
import net from 'node:net';

export interface Statement {
  /** 'simple' (a Query message) or 'extended' (Parse … Sync) */
  kind: 'simple' | 'extended';
  sql: string;
}

export class WireCounter {
  private server: net.Server;
  private sockets = new Set<net.Socket>();
  /** Every statement since the last reset, in order. */
  statements: Statement[] = [];
  /** Round trips since the last reset: Query messages plus Sync messages. */
  roundTrips = 0;

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
    // The last Parse's text: the statement that the following Execute runs.
    let parsed = '';
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
          continue;
        }
        if (buffer.length < 5) break;
        const type = String.fromCharCode(buffer[0]);
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) break;
        const payload = buffer.subarray(5, 1 + length);
        buffer = buffer.subarray(1 + length);
        if (type === 'Q') {
          this.statements.push({ kind: 'simple', sql: cstring(payload, 0) });
          this.roundTrips += 1;
        } else if (type === 'P') {
          const name = cstring(payload, 0);
          parsed = cstring(payload, Buffer.byteLength(name) + 1);
        } else if (type === 'E') {
          this.statements.push({ kind: 'extended', sql: parsed });
        } else if (type === 'S') {
          this.roundTrips += 1;
        }
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
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

function cstring(buffer: Buffer, offset: number): string {
  const end = buffer.indexOf(0, offset);
  return buffer.toString('utf8', offset, end < 0 ? buffer.length : end);
}
