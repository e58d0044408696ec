// Live record changes (GET /tables/row/stream/): every change of a row or a cell is
// sent once the write's transaction has committed (records/events.ts, db/after-commit.ts),
// so it is heard only then, by every server process on the same PostgreSQL database (and,
// on PGlite, by this process). The process's one LISTEN (core/live) hands each change to the
// streams of its table.
import type { FastifyBaseLogger } from 'fastify';
import type { LiveHub } from '../../core/live/hub.js';
import { Fanout } from '../../core/live/fanout.js';

export {
  RECORD_CHANNEL, EVENT_DATA_LIMIT, emitRowChange, emitRowsCreated, cellEvent, sendAfterCommit,
  type RowChange, type RowEvent, type CellEvent, type RecordEvent, type CellEventValues,
} from '../records/events.js';
import { RECORD_CHANNEL, type RecordEvent } from '../records/events.js';

/** One open stream as the fan-out sees it. */
export interface RecordSubscriber {
  table: string;
  /** Offered every change of the table; the stream decides what the viewer may read. */
  offer(event: RecordEvent): void;
  /** Changes may have been missed (the LISTEN connection was lost meanwhile): the client should re-read. */
  resync(): void;
}

/** The record changes heard on the process's one LISTEN (core/live), fanned out to the open streams of each table. */
export class RecordChanges {
  private readonly byTable = new Fanout<RecordSubscriber>();

  constructor(hub: LiveHub, private readonly log: FastifyBaseLogger) {
    hub.listen(RECORD_CHANNEL, {
      hear: (payload) => this.hear(payload),
      // Changes may have been missed meanwhile: every open stream's client re-reads.
      onReconnect: () => {
        for (const subscriber of this.byTable.all()) subscriber.resync();
      },
    });
  }

  /** Registers an open stream; returns the function that removes it. */
  subscribe(subscriber: RecordSubscriber): () => void {
    return this.byTable.add(subscriber.table, subscriber);
  }

  private hear(payload: string) {
    let event: RecordEvent;
    try {
      event = JSON.parse(payload) as RecordEvent;
    } catch {
      this.log.warn({ payload: payload.slice(0, 200) }, 'record changes: unreadable event');
      return;
    }
    for (const subscriber of this.byTable.of(event.table)) subscriber.offer(event);
  }
}
