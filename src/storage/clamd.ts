// The optional scan hook (issue 25): with CLAMD_SOCKET or CLAMD_HOST set, every file's
// bytes are sent to a ClamAV daemon (clamd) as they arrive, by its INSTREAM command, and
// the file becomes readable only once clamd answered "OK". A small client of our own
// rather than an npm one (docs/decisions.md, "Files: the scan"): the protocol is a command,
// length-prefixed chunks and one line of answer, and we need the bytes to flow with the
// upload's own back-pressure, which the packages' pass-through streams do not promise.
import net from 'node:net';

export interface ClamdSettings {
  socket: string | null;
  host: string | null;
  port: number;
  /** How long clamd may take to answer once the last byte is sent. */
  timeoutMs: number;
}

/** clamd found something: the signature's name. */
export class Infected extends Error {
  constructor(readonly signature: string) {
    super(`infected: ${signature}`);
  }
}

/** clamd could not be reached or did not answer: the upload is refused (fail closed). */
export class ScannerUnavailable extends Error {}

/** One file's scan: its bytes in order, then the verdict. */
export interface Scan {
  write(chunk: Buffer): Promise<void>;
  /** Sends the end of the stream and waits for clamd: resolves when clean, throws Infected or ScannerUnavailable. */
  finish(): Promise<void>;
  abort(): void;
}

export class Clamd {
  constructor(private readonly settings: ClamdSettings) {}

  /** Opens a connection to clamd and starts an INSTREAM. */
  begin(): Promise<Scan> {
    return new Promise((resolve, reject) => {
      const socket = this.settings.socket
        ? net.createConnection({ path: this.settings.socket })
        : net.createConnection({ host: this.settings.host!, port: this.settings.port });
      let answer = '';
      let failure: Error | null = null;
      let ended = false;
      const answered = new Promise<string>((settle) => {
        socket.on('data', (data) => {
          answer += data.toString('utf8');
        });
        socket.on('close', () => settle(answer));
      });
      socket.on('error', (err) => {
        failure ??= new ScannerUnavailable(`the virus scanner (clamd) failed: ${err.message}`);
      });
      socket.once('error', (err) => {
        if (!ended) reject(new ScannerUnavailable(`the virus scanner (clamd) cannot be reached: ${err.message}`));
      });
      socket.once('connect', () => {
        socket.write('zINSTREAM\0');
        const frame = Buffer.alloc(4);
        resolve({
          write: (chunk: Buffer) => new Promise<void>((done) => {
            if (failure || socket.destroyed) {
              // clamd closes the stream early when it refuses it (a size limit): its answer says why.
              done();
              return;
            }
            frame.writeUInt32BE(chunk.length, 0);
            socket.write(Buffer.from(frame));
            if (socket.write(chunk)) done();
            else socket.once('drain', () => done());
          }),
          finish: async () => {
            ended = true;
            if (!socket.destroyed) socket.end(Buffer.alloc(4));
            const timer = setTimeout(() => socket.destroy(new Error('no answer in time')), this.settings.timeoutMs);
            const text = (await answered).replace(/\0/g, '').trim();
            clearTimeout(timer);
            const match = /^stream: (.+) FOUND$/.exec(text);
            if (match) throw new Infected(match[1]);
            if (text === 'stream: OK') return;
            throw failure ?? new ScannerUnavailable(`the virus scanner (clamd) did not pass the file: ${text || 'no answer'}`);
          },
          abort: () => {
            ended = true;
            socket.destroy();
          },
        });
      });
    });
  }
}
