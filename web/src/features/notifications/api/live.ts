// The live stream of the person's new notifications (GET /notifications/notification/stream/,
// Server-Sent Events, opened with the session cookie alone). Each event refetches the inbox
// and the unread count; so does every (re)connection, so the count catches up after a
// dropped connection even when the browser had no event id to send back (with one, it
// sends Last-Event-ID and the API first replays what was missed). The same stream says when
// the person's own roles change (`event: access`): the frame passes that on (onAccess), and
// also after a reconnection, when such an event may have been missed.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { sessionQuery } from '../../../lib/api/session';
import { refreshNotifications } from './notifications';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'ended';

export interface LiveNotifications {
  state: LiveState;
  /** What the last notification that arrived was ("From: subject"), for a polite announcement. */
  latest: string | null;
}

/** How long to wait before opening a new stream after the browser gave up on one (a 401, a server gone). */
const REOPEN_MS = 5_000;

interface StreamItem {
  sid: string;
  name: string;
  From: { sid: string; name: string } | null;
}

/** A change of the person's roles (`event: access`): where, and their roles there now. */
export interface AccessChange {
  organization: string;
  project: string | null;
  role: 'admin' | 'member' | 'alumni' | null;
  permission: 'admin' | 'edit' | 'view' | null;
}

/**
 * Keeps a stream open for the organization while mounted. `onAccess` runs on each change of
 * the person's roles (null: after a reconnection, when one may have been missed).
 */
export function useLiveNotifications(orgSid: string, onAccess?: (change: AccessChange | null) => void): LiveNotifications {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');
  const [latest, setLatest] = useState<string | null>(null);
  const accessHandler = useRef(onAccess);
  accessHandler.current = onAccess;
  useEffect(() => {
    let source: EventSource | null = null;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let opened = false;
    const open = () => {
      source = new EventSource(`/notifications/notification/stream/?organization__sid=${encodeURIComponent(orgSid)}`);
      source.addEventListener('open', () => {
        setState('live');
        void refreshNotifications(queryClient, orgSid);
        if (opened) accessHandler.current?.(null);
        opened = true;
      });
      source.addEventListener('access', (event) => {
        accessHandler.current?.(JSON.parse((event as MessageEvent<string>).data) as AccessChange);
      });
      source.addEventListener('notification', (event) => {
        const item = JSON.parse((event as MessageEvent<string>).data) as StreamItem;
        setLatest(`New notification${item.From ? ` from ${item.From.name}` : ''}: ${item.name}`);
        void refreshNotifications(queryClient, orgSid);
      });
      // The server ends a stream whose session or membership ended: do not reconnect with it.
      source.addEventListener('end', () => {
        source?.close();
        setState('ended');
        void queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
      });
      source.addEventListener('error', () => {
        if (stopped) return;
        if (source?.readyState === EventSource.CLOSED) {
          setState('reconnecting');
          reopen = setTimeout(open, REOPEN_MS);
        } else {
          setState('reconnecting'); // the browser reconnects by itself, with Last-Event-ID
        }
      });
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(reopen);
      source?.close();
    };
  }, [orgSid, queryClient]);
  return { state, latest };
}
