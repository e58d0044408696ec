// Notifications of the signed-in member in one organization: the inbox (pages, newest
// first), the unread count (the inbox filtered by is_read=false: its count), one
// notification (reading it as its recipient marks it read: the spec's transition), its
// thread (the chain of parents), sending, marking, deleting; and the live stream that
// brings new ones in (see live.ts).
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../lib/api/client';
import type { paths } from '../../../lib/api/schema';

export const INBOX_PAGE_SIZE = 20;
/** The deepest thread shown above a notification (parents further up are linked, not fetched). */
export const THREAD_DEPTH = 10;

export type NotificationDetail = paths['/notifications/notification/detail/{sid}/']['get']['responses'][200]['content']['application/json'];
export type NewNotification = NonNullable<
  paths['/notifications/notification/list/{level}/{sid}/detail/']['post']['requestBody']
>['content']['application/json'];

/** Everything cached about an organization's notifications: refetched together when one arrives or changes. */
export const notificationsKey = (orgSid: string) => ['notifications', orgSid] as const;

type InboxPage = paths['/notifications/notification/list/{level}/{sid}/detail/']['get']['responses'][200]['content']['application/json'];

/** A page of the inbox in the detail shape (body, parent, date). */
export const inboxQuery = (orgSid: string, page = 1) =>
  queryOptions({
    queryKey: [...notificationsKey(orgSid), 'inbox', page],
    queryFn: () =>
      unwrap(
        api.GET('/notifications/notification/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { page, page_size: INBOX_PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });

export function useInbox(orgSid: string, page = 1) {
  return useQuery(inboxQuery(orgSid, page));
}

/** How many notifications of the inbox are unread. */
export const unreadCountQuery = (orgSid: string) =>
  queryOptions({
    queryKey: [...notificationsKey(orgSid), 'unread'],
    queryFn: async () => {
      const page = await unwrap(
        api.GET('/notifications/notification/list/{level}/{sid}/name/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { is_read: false, page_size: 1 } },
        }),
      );
      return page.count;
    },
    staleTime: 60_000,
  });

export function useUnreadCount(orgSid: string) {
  return useQuery(unreadCountQuery(orgSid));
}

/** Refetches the inbox and the count (a notification arrived, was read, marked or deleted). */
export function refreshNotifications(queryClient: QueryClient, orgSid: string) {
  return queryClient.invalidateQueries({ queryKey: notificationsKey(orgSid) });
}

async function getNotification(sid: string): Promise<NotificationDetail> {
  return unwrap(api.GET('/notifications/notification/detail/{sid}/', { params: { path: { sid } } }));
}

/**
 * One notification, opened: the GET marks the recipient's copy read, so the inbox and
 * the count are refetched when it was unread. With it, its thread: the parents above it,
 * nearest last (each GET of a parent the person received marks that one read too: it is
 * on screen).
 */
export function useOpenNotification(orgSid: string, sid: string) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: [...notificationsKey(orgSid), 'open', sid],
    queryFn: async () => {
      const notification = await getNotification(sid);
      const thread: NotificationDetail[] = [];
      let parent = notification.parent;
      while (parent && thread.length < THREAD_DEPTH) {
        const above = await getNotification(parent.sid).catch(() => null);
        if (!above) break;
        thread.unshift(above);
        parent = above.parent;
      }
      // Opening it marked it read: the count and the inbox change (not this query: it already has it).
      void queryClient.invalidateQueries({ queryKey: notificationsKey(orgSid), predicate: (q) => q.queryKey[2] !== 'open' });
      return { notification, thread, more: parent };
    },
    staleTime: Infinity,
  });
}

/** Sends a notification; answers the first recipient's copy as the sender sees it. */
export function useSendNotification(orgSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewNotification) =>
      unwrap(
        api.POST('/notifications/notification/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid } },
          body,
        }),
      ),
    // A message to oneself lands in one's own inbox.
    onSuccess: () => refreshNotifications(queryClient, orgSid),
  });
}

/** Marks the recipient's copy read or unread again (PATCH is_read). */
export function useMarkNotification(orgSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ sid, is_read }: { sid: string; is_read: boolean }) =>
      unwrap(api.PATCH('/notifications/notification/detail/{sid}/', { params: { path: { sid } }, body: { is_read } })),
    onSuccess: (notification) => {
      queryClient.setQueryData([...notificationsKey(orgSid), 'open', notification.sid], (old: { notification: NotificationDetail } | undefined) =>
        old ? { ...old, notification } : old,
      );
      return queryClient.invalidateQueries({ queryKey: notificationsKey(orgSid), predicate: (q) => q.queryKey[2] !== 'open' });
    },
  });
}

/** Removes the recipient's copy from their inbox. */
export function useDeleteNotification(orgSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (sid: string) => unwrap(api.DELETE('/notifications/notification/detail/{sid}/', { params: { path: { sid } } })),
    onSuccess: (_answer, sid) => {
      queryClient.removeQueries({ queryKey: [...notificationsKey(orgSid), 'open', sid] });
      // Gone from the cached pages at once (the inbox shows them before its refetch ends).
      queryClient.setQueriesData<InboxPage>({ queryKey: [...notificationsKey(orgSid), 'inbox'] }, (old) =>
        old && old.results.some((n) => n.sid === sid) ? { ...old, count: old.count - 1, results: old.results.filter((n) => n.sid !== sid) } : old,
      );
      return queryClient.invalidateQueries({ queryKey: notificationsKey(orgSid), predicate: (q) => q.queryKey[2] !== 'open' });
    },
  });
}

export interface PersonChoice {
  sid: string;
  name: string;
  email: string;
}

/** How many suggestions a search for recipients shows. */
export const RECIPIENT_SUGGESTIONS = 20;

/**
 * Active members whose name or email contains `text` (the personnel list's `search`, on
 * the server: an organization of any size is never loaded whole), for choosing recipients.
 */
export const recipientSearch = (orgSid: string, text: string) =>
  queryOptions({
    queryKey: ['recipient-choices', orgSid, text],
    staleTime: 60_000,
    queryFn: async (): Promise<PersonChoice[]> => {
      const found = await unwrap(
        api.GET('/organizations/personnel/list/{level}/{sid}/list/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { search: text, page_size: RECIPIENT_SUGGESTIONS } },
        }),
      );
      return found.results.filter((person) => !person.is_archived).map((person) => ({ sid: person.sid, name: person.name, email: person.email }));
    },
  });

/** The suggestions for what is typed (none for nothing typed). */
export function useRecipientChoices(orgSid: string, text: string) {
  return useQuery({ ...recipientSearch(orgSid, text), enabled: text.length > 0, placeholderData: keepPreviousData });
}

/** One member by personnel sid, as a recipient (null when not an active member the caller can see). */
export const recipientBySid = (sid: string) =>
  queryOptions({
    queryKey: ['recipient-by-sid', sid],
    staleTime: 60_000,
    queryFn: async (): Promise<PersonChoice | null> => {
      const { data } = await api.GET('/organizations/personnel/detail/{sid}/', { params: { path: { sid } } });
      return data && !data.is_archived ? { sid: data.sid, name: data.name, email: data.email } : null;
    },
  });
