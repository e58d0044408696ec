// Workflows, their steps (in order) and their executions: the query options and hooks of
// the workflow screens and of the grid's "Run workflow" row action (docs/workflows.md).
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../../lib/api/client';
import { allPages, MAX_PAGE_SIZE } from '../../../lib/api/page';
import type { components } from '../../../lib/api/schema';
import { tableQuery } from '../../../lib/api/tables';

export type Workflow = components['schemas']['WorkflowDetail'];
export type WorkflowSummary = components['schemas']['WorkflowList'];
export type Step = components['schemas']['StepDetail'];
export type Execution = components['schemas']['ExecutionDetail'];
export type ExecutionSummary = components['schemas']['ExecutionList'];
/** A step's settings, a trigger's variables: a JSON object (the API's `JsonValue`s). */
export type JsonObject = Record<string, components['schemas']['JsonValue']>;

export const WORKFLOWS_PAGE_SIZE = 25;
/** A workflow has at most 100 steps (src/modules/steps/settings.ts), so one page holds them all. */
const MAX_STEPS = 100;

/** A page of the workflows specific to a table. */
export const tableWorkflowsQuery = (orgSid: string, tableSid: string, page = 1) =>
  queryOptions({
    queryKey: ['workflows', orgSid, tableSid, page],
    queryFn: () =>
      unwrap(
        api.GET('/tables/workflow/list/{level}/{sid}/list/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { table__sid: tableSid, page, page_size: WORKFLOWS_PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });

export function useTableWorkflows(orgSid: string, tableSid: string, page = 1) {
  return useQuery(tableWorkflowsQuery(orgSid, tableSid, page));
}

/**
 * Every workflow of the organization (list shape): the grid offers those that may run
 * on a row of its table (specific to it, or to any table); `add_permission` says whether
 * the caller is an Admin, who alone may trigger one.
 */
export const organizationWorkflowsQuery = (orgSid: string) =>
  queryOptions({
    queryKey: ['workflows', orgSid, 'all'],
    queryFn: () =>
      allPages((page) =>
        unwrap(
          api.GET('/tables/workflow/list/{level}/{sid}/list/', {
            params: { path: { level: 'organization', sid: orgSid }, query: { page, page_size: MAX_PAGE_SIZE } },
          }),
        ),
      ),
  });

export function useOrganizationWorkflows(orgSid: string) {
  return useQuery(organizationWorkflowsQuery(orgSid));
}

/** One workflow (detail shape). */
export const workflowQuery = (sid: string) =>
  queryOptions({
    queryKey: ['workflow', sid],
    queryFn: () => unwrap(api.GET('/tables/workflow/detail/{sid}/', { params: { path: { sid } } })),
  });

export function useWorkflow(sid: string) {
  return useQuery(workflowQuery(sid));
}

export function useCreateWorkflow(orgSid: string, tableSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; description?: string }) =>
      unwrap(
        api.POST('/tables/workflow/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { table__sid: tableSid } },
          body,
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['workflows', orgSid] }),
  });
}

/** Changes a workflow's name, description or archived state. */
export function useUpdateWorkflow(orgSid: string, sid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name?: string; description?: string; is_archived?: boolean }) =>
      unwrap(api.PATCH('/tables/workflow/detail/{sid}/', { params: { path: { sid } }, body })),
    onSuccess: (workflow) => {
      const { execution: _none, ...record } = workflow;
      queryClient.setQueryData(workflowQuery(sid).queryKey, record);
      return queryClient.invalidateQueries({ queryKey: ['workflows', orgSid] });
    },
  });
}

/** Deletes a workflow with its steps and executions. */
export function useDeleteWorkflow(orgSid: string, sid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/tables/workflow/detail/{sid}/', { params: { path: { sid } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: ['workflow', sid] });
      // Gone from the cached lists at once (they are refetched when next shown).
      queryClient.setQueriesData<{ results: WorkflowSummary[]; count: number }>({ queryKey: ['workflows', orgSid] }, (page) =>
        page && page.results.some((w) => w.sid === sid) ? { ...page, results: page.results.filter((w) => w.sid !== sid), count: page.count - 1 } : page,
      );
      return queryClient.invalidateQueries({ queryKey: ['workflows', orgSid] });
    },
  });
}

/** The steps of a workflow in order, with their settings (detail shape, one page). */
export const stepsQuery = (orgSid: string, workflowSid: string) =>
  queryOptions({
    queryKey: ['steps', workflowSid],
    queryFn: () =>
      unwrap(
        api.GET('/tables/step/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { workflow__sid: workflowSid, page_size: MAX_STEPS } },
        }),
      ),
  });

export function useSteps(orgSid: string, workflowSid: string) {
  return useQuery(stepsQuery(orgSid, workflowSid));
}

export interface StepInput {
  name: string;
  description?: string;
  widget: string;
  data: JsonObject;
}

export function useCreateStep(orgSid: string, workflowSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: StepInput) =>
      unwrap(
        api.POST('/tables/step/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid } },
          body: { ...body, workflow: workflowSid },
        }),
      ),
    // Not awaited: the caller's own onSuccess (which clears the form) runs before the list shows the new step.
    onSuccess: () => void stepsChanged(queryClient, workflowSid),
  });
}

type QueryClient = ReturnType<typeof useQueryClient>;
const stepsChanged = (queryClient: QueryClient, workflowSid: string) =>
  Promise.all([
    queryClient.invalidateQueries({ queryKey: ['steps', workflowSid] }),
    queryClient.invalidateQueries({ queryKey: ['workflow', workflowSid] }),
  ]);

/** Changes a step's name, description, widget or settings. */
export function useUpdateStep(workflowSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ sid, body }: { sid: string; body: Partial<StepInput> }) =>
      unwrap(api.PATCH('/tables/step/detail/{sid}/', { params: { path: { sid } }, body })),
    onSuccess: () => stepsChanged(queryClient, workflowSid),
  });
}

/**
 * Moves a step to position `order` (from 1), as the API orders steps: the steps in
 * between shift by one. The list is reordered at once and put back if the API refuses.
 */
export function useMoveStep(orgSid: string, workflowSid: string) {
  const queryClient = useQueryClient();
  const key = stepsQuery(orgSid, workflowSid).queryKey;
  return useMutation({
    mutationFn: ({ sid, order }: { sid: string; order: number }) =>
      unwrap(api.PATCH('/tables/step/detail/{sid}/', { params: { path: { sid } }, body: { order } })),
    onMutate: async ({ sid, order }) => {
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData(key);
      if (before) {
        const results = before.results.filter((step) => step.sid !== sid);
        const moved = before.results.find((step) => step.sid === sid);
        if (moved) results.splice(order - 1, 0, moved);
        queryClient.setQueryData(key, { ...before, results: results.map((step, i) => ({ ...step, order: i + 1 })) });
      }
      return { before };
    },
    onError: (_error, _vars, context) => {
      if (context?.before) queryClient.setQueryData(key, context.before);
    },
    onSettled: () => stepsChanged(queryClient, workflowSid),
  });
}

export function useDeleteStep(workflowSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (sid: string) => unwrap(api.DELETE('/tables/step/detail/{sid}/', { params: { path: { sid } } })),
    onSuccess: () => stepsChanged(queryClient, workflowSid),
  });
}

export const EXECUTIONS_PAGE_SIZE = 25;

/** A page of a workflow's executions, oldest first (list shape). */
export const executionsQuery = (orgSid: string, workflowSid: string, page = 1) =>
  queryOptions({
    queryKey: ['executions', workflowSid, page],
    queryFn: () =>
      unwrap(
        api.GET('/tables/execution/list/{level}/{sid}/list/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { workflow__sid: workflowSid, page, page_size: EXECUTIONS_PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });

export function useExecutions(orgSid: string, workflowSid: string, page = 1) {
  return useQuery(executionsQuery(orgSid, workflowSid, page));
}

/** One execution: its state, variables, data and whole log. */
export const executionQuery = (sid: string) =>
  queryOptions({
    queryKey: ['execution', sid],
    queryFn: () => unwrap(api.GET('/tables/execution/detail/{sid}/', { params: { path: { sid } } })),
    // Seen `running`, another request is advancing it (or stopped mid-way): look again shortly.
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 2000 : false),
  });

export function useExecution(sid: string) {
  return useQuery(executionQuery(sid));
}

export interface TriggerInput {
  workflowSid: string;
  rowSid: string;
  /** An event for the log; resumes an execution waiting for it. */
  event?: string;
  variables?: JsonObject;
}

/**
 * Triggers a workflow for a row (`PATCH …?trigger__sid=`): starts an execution, or
 * continues the one running or waiting (with `event`, resumes it). Resolves with the
 * execution as it stands after its steps ran, which goes into the cache.
 */
export function useTriggerWorkflow() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ workflowSid, rowSid, event, variables }: TriggerInput) => {
      const answer = await unwrap(
        api.PATCH('/tables/workflow/detail/{sid}/', {
          params: { path: { sid: workflowSid }, query: { trigger__sid: rowSid, ...(event ? { event } : {}) } },
          body: variables ? { variables } : {},
        }),
      );
      return answer.execution!;
    },
    onSuccess: (execution) => {
      queryClient.setQueryData(executionQuery(execution.sid).queryKey, execution);
      // The steps may have changed the row (cells, lock) and the organization's credits.
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: ['executions', execution.workflow.sid] }),
        queryClient.invalidateQueries({ queryKey: ['grid'] }),
        queryClient.invalidateQueries({ queryKey: ['versions', execution.row.sid] }),
        queryClient.invalidateQueries({ queryKey: ['row', execution.row.sid] }),
        queryClient.invalidateQueries({ queryKey: ['organization'] }),
      ]);
    },
  });
}

/** The workflow's table with its columns, when the workflow is specific to one. */
export function useWorkflowTable(tableSid: string | undefined) {
  return useQuery({ ...tableQuery(tableSid ?? ''), enabled: Boolean(tableSid) });
}
