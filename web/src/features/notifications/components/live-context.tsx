// The organization's live notifications, opened once by the frame (shell) and read by the
// inbox link, the announcement and the inbox screen.
import { createContext, useContext, type ReactNode } from 'react';
import { useLiveNotifications, type AccessChange, type LiveNotifications } from '../api/live';

const LiveContext = createContext<LiveNotifications>({ state: 'connecting', latest: null });

/** Opens the live stream of the organization for everything inside; `onAccess`: the person's roles changed. */
export function LiveNotificationsProvider({ orgSid, onAccess, children }: { orgSid: string; onAccess?: (change: AccessChange | null) => void; children: ReactNode }) {
  const live = useLiveNotifications(orgSid, onAccess);
  return <LiveContext.Provider value={live}>{children}</LiveContext.Provider>;
}

export function useLive(): LiveNotifications {
  return useContext(LiveContext);
}

const STATE_TEXT = {
  connecting: 'Connecting to live updates…',
  live: 'Live: new notifications appear here as they arrive.',
  reconnecting: 'Reconnecting to live updates… (what arrives meanwhile shows once it is back)',
  ended: 'Live updates stopped: sign in again to get them.',
} as const;

/** Says whether new notifications arrive live. */
export function LiveStatus() {
  const { state } = useLive();
  return (
    <p className={`live-status live-${state}`} data-live-state={state}>
      {STATE_TEXT[state]}
    </p>
  );
}
