// Widgets: the built-in ones and the organization's own, with their prices.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { allPages, MAX_PAGE_SIZE } from './page';

/** Every widget the organization may use (the built-in ones first). */
export const widgetsQuery = (orgSid: string) =>
  queryOptions({
    queryKey: ['widgets', orgSid],
    queryFn: () =>
      allPages((page) =>
        unwrap(
          api.GET('/widgets/widget/list/{level}/{sid}/list/', {
            params: { path: { level: 'organization', sid: orgSid }, query: { page, page_size: MAX_PAGE_SIZE } },
          }),
        ),
      ),
  });

/** The kinds of the built-in workflow step widgets (docs/workflows.md): they act on a row, they do not edit a cell. */
export const STEP_KINDS = ['notify', 'set_cell', 'lock_row', 'wait_event'] as const;

/** Whether a widget is a way to edit a cell (offered for a column), not a workflow step's. */
export const isCellWidget = (widget: { kind: string }) => !(STEP_KINDS as readonly string[]).includes(widget.kind);

export function useWidgets(orgSid: string) {
  return useQuery(widgetsQuery(orgSid));
}

export function useCreateWidget(orgSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; description?: string; price?: string; addable_at_readonly?: boolean }) =>
      unwrap(
        api.POST('/widgets/widget/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid } },
          body,
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['widgets', orgSid] }),
  });
}
