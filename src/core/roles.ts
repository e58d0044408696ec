// The roles and a caller's standing in an organization, as types only: what access.ts
// decides, auth.ts reads with the credential and rules.ts tests, named here so that none
// of those three imports another for a type (no import cycle in src/core).

/** Organization roles (design: Roles). Alumni: archived or past date_end, no access. */
export type OrgRole = 'admin' | 'member' | 'alumni';

/** The caller's standing in one organization. */
export interface Membership {
  organizationSid: string;
  organizationName: string;
  personnelSid: string;
  role: OrgRole;
}

export interface MembershipRow {
  organization_sid: string;
  organization_name: string;
  personnel_sid: string | null;
  is_administrator: boolean | null;
  is_archived: boolean | null;
  is_current: boolean | null;
}

/** Project roles (design: Roles): from project membership's `permission`. */
export type ProjectRole = 'admin' | 'edit' | 'view';
