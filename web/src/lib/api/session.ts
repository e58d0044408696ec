// The browser session: who is signed in (GET /accounts/session/), signing in and out, and
// the account pages' requests (sign up, forgotten password, reset, email proof).
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, toApiError, unwrap } from './client';
import type { components } from './schema';

/** The signed-in person, as the session endpoint gives them. */
export type SessionUser = components['schemas']['SessionUser'];

/** The session's user, or null when nobody is signed in (401). */
export const sessionQuery = queryOptions({
  queryKey: ['session'],
  queryFn: async (): Promise<SessionUser | null> => {
    const { data, error, response } = await api.GET('/accounts/session/');
    if (response.status === 401) return null;
    if (!response.ok || !data) throw toApiError(response.status, error);
    return data.user;
  },
  staleTime: 60_000,
});

/** The signed-in person (null when signed out). */
export function useSession() {
  return useQuery(sessionQuery);
}

/** How often an account whose email is not proved yet asks whether it is now. */
export const PROOF_POLL_MS = 3_000;

/**
 * The session of an account whose email is not proved yet, asked for again every few
 * seconds: the screen that waits for the proof turns into the app the moment it lands
 * (the link opened in another tab, on a phone …).
 */
export function useSessionAwaitingProof() {
  return useQuery({ ...sessionQuery, refetchInterval: (query) => (query.state.data?.is_email_verified === false ? PROOF_POLL_MS : false) });
}

/** Mails a new link that proves the signed-in person's email. */
export function useResendProof() {
  return useMutation({ mutationFn: () => unwrap(api.POST('/accounts/verifyemail/resend/')) });
}

/** Names another address for an account whose email is not proved yet: its link makes it the sign-in address. */
export function useChangeEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => unwrap(api.POST('/accounts/changeemail/', { body: { email } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
  });
}

/** Signs in with email and password; the API sets the HttpOnly session cookie. */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { username: string; password: string }) => unwrap(api.POST('/accounts/session/', { body })),
    onSuccess: (data) => {
      queryClient.clear();
      queryClient.setQueryData(sessionQuery.queryKey, data.user);
    },
  });
}

/** Ends the session on the server and forgets everything cached for it. */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/accounts/session/')),
    onSettled: () => {
      queryClient.clear();
      queryClient.setQueryData(sessionQuery.queryKey, null);
    },
  });
}

/** Creates an account. */
export function useSignUp() {
  return useMutation({
    mutationFn: (body: { email: string; password: string; first_name: string; last_name: string }) =>
      unwrap(api.POST('/accounts/signup/', { body })),
  });
}

/** Asks for a password reset link by email. */
export function useForgotPassword() {
  return useMutation({
    mutationFn: (body: { email: string }) => unwrap(api.POST('/accounts/forgetpassword/', { body })),
  });
}

/**
 * Trusts this browser for the account whose owner was mailed the unlock link (the API sets
 * its device cookie): its sign-ins then skip the slow-down strangers' failures caused.
 */
export function useUnlock() {
  return useMutation({
    mutationFn: (tag: string) => unwrap(api.POST('/accounts/unlock/', { params: { query: { tag } } })),
  });
}

/** Sets a new password with the tag of an emailed reset link. */
export function useResetPassword() {
  return useMutation({
    mutationFn: ({ tag, password }: { tag: string; password: string }) =>
      unwrap(api.POST('/accounts/resetpassword/', { params: { query: { tag } }, body: { password } })),
  });
}
