// Projects of an organization and their members with roles.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { MAX_PAGE_SIZE } from './page';

/** A page of the organization's projects the caller may see. */
export const projectsQuery = (orgSid: string, page = 1) =>
  queryOptions({
    queryKey: ['projects', orgSid, page],
    queryFn: () =>
      unwrap(
        api.GET('/projects/project/list/{level}/{sid}/list/', {
          params: { path: { level: 'organization', sid: orgSid }, query: { page, page_size: MAX_PAGE_SIZE } },
        }),
      ),
  });

export function useProjects(orgSid: string, page = 1) {
  return useQuery(projectsQuery(orgSid, page));
}

export function useProject(projectSid: string) {
  return useQuery({
    queryKey: ['project', projectSid],
    queryFn: () => unwrap(api.GET('/projects/project/detail/{sid}/', { params: { path: { sid: projectSid } } })),
  });
}

export function useCreateProject(orgSid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; description?: string }) =>
      unwrap(
        api.POST('/projects/project/list/{level}/{sid}/detail/', {
          params: { path: { level: 'organization', sid: orgSid } },
          body,
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['projects', orgSid] }),
  });
}

export type ProjectRole = 'admin' | 'edit' | 'view';

/** A page of a project's members. */
export const projectMembersQuery = (projectSid: string, page = 1) =>
  queryOptions({
    queryKey: ['project-members', projectSid, page],
    queryFn: () =>
      unwrap(
        api.GET('/projects/member/list/{level}/{sid}/list/', {
          params: { path: { level: 'project', sid: projectSid }, query: { page, page_size: MAX_PAGE_SIZE } },
        }),
      ),
  });

export function useProjectMembers(projectSid: string, page = 1) {
  return useQuery(projectMembersQuery(projectSid, page));
}

/**
 * The caller's role in the project (null: none), from the members list and their
 * personnel sid; what the API lets them do with rows follows from it.
 */
export function useMyProjectRole(projectSid: string | undefined, personnelSid: string | undefined) {
  return useQuery({
    queryKey: ['my-project-role', projectSid, personnelSid],
    enabled: Boolean(projectSid && personnelSid),
    queryFn: async (): Promise<ProjectRole | null> => {
      for (let page = 1; ; page += 1) {
        const members = await unwrap(
          api.GET('/projects/member/list/{level}/{sid}/list/', {
            params: { path: { level: 'project', sid: projectSid! }, query: { page, page_size: MAX_PAGE_SIZE } },
          }),
        );
        const mine = members.results.find((member) => member.personnel.sid === personnelSid);
        if (mine) return mine.permission as ProjectRole;
        if (!members.next) return null;
      }
    },
  });
}

/**
 * After a change of the project's members: its member list, the caller's role in it, and the
 * project's cached grid pages (their add_permission and change_permission follow the roles),
 * read again when next shown.
 */
function useInvalidateMembers(projectSid: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['project-members', projectSid] }),
      queryClient.invalidateQueries({ queryKey: ['my-project-role', projectSid] }),
      queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] === 'grid' && query.queryKey[2] === projectSid }),
    ]);
}

export function useAddProjectMember(projectSid: string) {
  const invalidate = useInvalidateMembers(projectSid);
  return useMutation({
    mutationFn: (body: { personnel: string; permission: ProjectRole }) =>
      unwrap(
        api.POST('/projects/member/list/{level}/{sid}/detail/', {
          params: { path: { level: 'project', sid: projectSid } },
          body,
        }),
      ),
    onSuccess: invalidate,
  });
}

export function useChangeProjectMember(projectSid: string) {
  const invalidate = useInvalidateMembers(projectSid);
  return useMutation({
    mutationFn: ({ sid, permission }: { sid: string; permission: ProjectRole }) =>
      unwrap(api.PATCH('/projects/member/detail/{sid}/', { params: { path: { sid } }, body: { permission } })),
    onSuccess: invalidate,
  });
}

export function useRemoveProjectMember(projectSid: string) {
  const invalidate = useInvalidateMembers(projectSid);
  return useMutation({
    mutationFn: (sid: string) => unwrap(api.DELETE('/projects/member/detail/{sid}/', { params: { path: { sid } } })),
    onSuccess: invalidate,
  });
}
