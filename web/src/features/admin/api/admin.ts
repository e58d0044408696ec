// The instance administrators' requests (/admin/…): every organization and granting it
// credits, every account (disable, enable, a new proof link), the settings changed while
// the service runs, the outbox's health.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../lib/api/client';
import type { components } from '../../../lib/api/schema';

export type AdminOrganization = components['schemas']['AdminOrganizationList'];
export type AdminAccount = components['schemas']['AdminAccountList'];
export type InstanceSettings = components['schemas']['InstanceSettings'];
export type SettingsChange = components['schemas']['InstanceSettingsUpdate'];

export const ADMIN_PAGE_SIZE = 25;

/** A page of every organization of the instance (those whose name contains `search`), newest first. */
export function useAdminOrganizations(userSid: string, page: number, search: string) {
  return useQuery({
    queryKey: ['admin', 'organizations', page, search],
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/admin/organization/list/{level}/{sid}/list/', {
          params: { path: { level: 'user', sid: userSid }, query: { page, page_size: ADMIN_PAGE_SIZE, ...(search ? { search } : {}) } },
        }),
      ),
  });
}

/** The newest entries of an organization's credit ledger. */
export function useAdminLedger(orgSid: string | null) {
  return useQuery({
    queryKey: ['admin', 'ledger', orgSid],
    enabled: Boolean(orgSid),
    queryFn: () =>
      unwrap(
        api.GET('/admin/credit/list/{level}/{sid}/list/', {
          params: { path: { level: 'organization', sid: orgSid! }, query: { page_size: 5 } },
        }),
      ),
  });
}

/** Grants credits to an organization; its ledger entry names the administrator. */
export function useGrantCredits() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ orgSid, amount, note }: { orgSid: string; amount: string; note?: string }) =>
      unwrap(
        api.POST('/admin/credit/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid } },
          body: { amount, ...(note ? { note } : {}) },
        }),
      ),
    onSuccess: (_entry, { orgSid }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['admin', 'organizations'] }),
        queryClient.invalidateQueries({ queryKey: ['admin', 'ledger', orgSid] }),
        // The administrator may be a member of it too: the frame's credits.
        queryClient.invalidateQueries({ queryKey: ['organization', orgSid] }),
      ]),
  });
}

/** A page of every account of the instance (those whose name or email contains `search`), newest first. */
export function useAdminAccounts(userSid: string, page: number, search: string) {
  return useQuery({
    queryKey: ['admin', 'accounts', page, search],
    placeholderData: keepPreviousData,
    queryFn: () =>
      unwrap(
        api.GET('/admin/account/list/{level}/{sid}/list/', {
          params: { path: { level: 'user', sid: userSid }, query: { page, page_size: ADMIN_PAGE_SIZE, ...(search ? { search } : {}) } },
        }),
      ),
  });
}

/** Disables (false) or enables (true) an account. */
export function useSetAccountActive() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ sid, active }: { sid: string; active: boolean }) =>
      unwrap(api.PATCH('/admin/account/detail/{sid}/', { params: { path: { sid } }, body: { is_active: active } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'accounts'] }),
  });
}

/** Mails an account a new link that proves its email. */
export function useResendAccountProof() {
  return useMutation({
    mutationFn: (sid: string) => unwrap(api.POST('/admin/account/detail/{sid}/resendproof/', { params: { path: { sid } } })),
  });
}

const settingsKey = ['admin', 'settings'] as const;

export function useInstanceSettings() {
  return useQuery({ queryKey: settingsKey, queryFn: () => unwrap(api.GET('/admin/settings/')) });
}

/** Changes settings (null: back to the environment's value); the answer is the settings as they are now. */
export function useChangeSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: SettingsChange) => unwrap(api.PATCH('/admin/settings/', { body: change })),
    onSuccess: (settings) => queryClient.setQueryData(settingsKey, settings),
  });
}

/** How often the mail screen reads the outbox's health again while it is open. */
export const OUTBOX_REFRESH_MS = 10_000;

export function useOutboxHealth() {
  return useQuery({ queryKey: ['admin', 'outbox'], queryFn: () => unwrap(api.GET('/admin/outbox/')), refetchInterval: OUTBOX_REFRESH_MS });
}
