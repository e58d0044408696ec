// Roles take effect at once (issue 22, points 4 and 5): when the person's roles change —
// a project role given or taken, made Admin, added to an organization — the notification
// stream the frame keeps open says so (`event: access`), and every screen re-reads what it
// shows: the grid's "Add row" and the row actions (add_permission, change_permission, the
// project role), the overview's projects, the organization switcher. Composed here, in the
// app, because it crosses every feature's cache.
import type { QueryClient } from '@tanstack/react-query';

/**
 * Marks every cached answer stale and refetches those on screen: which of them a role
 * decides is for the API to say, so none is trusted. Not the session (no role in it), nor
 * an opened notification (reading it again would mark it read again).
 */
export function refreshAfterAccessChange(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: (query) => query.queryKey[0] !== 'session' && !(query.queryKey[0] === 'notifications' && query.queryKey[2] === 'open'),
  });
}
