// The signed-in person's account: API keys (list, create — the key is shown once —,
// revoke), changing the password, and ending every session ("sign out everywhere").
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../lib/api/client';
import { allPages, MAX_PAGE_SIZE } from '../../../lib/api/page';
import { sessionQuery } from '../../../lib/api/session';

const keysKey = (userSid: string) => ['api-keys', userSid] as const;

/** Every API key of the person (newest first); the keys themselves are never shown again. */
export function useApiKeys(userSid: string) {
  return useQuery({
    queryKey: keysKey(userSid),
    queryFn: () =>
      allPages((page) =>
        unwrap(
          api.GET('/accounts/apikey/list/{level}/{sid}/list/', {
            params: { path: { level: 'user', sid: userSid }, query: { page, page_size: MAX_PAGE_SIZE } },
          }),
        ),
      ),
  });
}

/** Creates a key; the answer holds the key, the only time it is shown. */
export function useCreateApiKey(userSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      unwrap(api.POST('/accounts/apikey/list/{level}/{sid}/detail/', { params: { path: { level: 'user', sid: userSid } }, body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey(userSid) }),
  });
}

/** Deletes a key: it stops working at once. */
export function useRevokeApiKey(userSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (sid: string) => unwrap(api.DELETE('/accounts/apikey/detail/{sid}/', { params: { path: { sid } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey(userSid) }),
  });
}

/** Changes the password (the current one required); the account's other sessions end. */
export function useChangePassword() {
  return useMutation({
    mutationFn: (body: { current_password: string; new_password: string }) => unwrap(api.POST('/accounts/changepassword/', { body })),
  });
}

/** Ends every session of the account, this one too; the app then shows the sign-in page. */
export function useSignOutEverywhere() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/accounts/logoutall/')),
    onSuccess: () => {
      queryClient.clear();
      queryClient.setQueryData(sessionQuery.queryKey, null);
    },
  });
}
