// The one permission catalog: what each role may do with each resource. Lists use it
// for add_permission, records for change_permission, and routes to refuse (403).
import type { Membership } from './access.js';

const isAdmin = (m: Membership | null | undefined) => m?.role === 'admin';
const isActive = (m: Membership | null | undefined) => m?.role === 'admin' || m?.role === 'member';

/** The personnel fields a Member may change on their own record (spec: Personnel, PATCH). */
export const MEMBER_PERSONNEL_FIELDS = [
  'first_name', 'last_name', 'email', 'metadata', 'dashboard', 'should_receive_weekly_digest',
  'should_receive_statement_digest', 'should_receive_mention_notification',
  'should_receive_record_change_notification', 'should_receive_notification_email',
] as const;

/** The administrative personnel fields only an Admin may change (spec: Personnel, PATCH body). */
export const ADMIN_PERSONNEL_FIELDS = ['title', 'date_start', 'date_end', 'is_administrator', 'is_archived'] as const;

export const permissions = {
  organization: {
    read: isActive,
    change: isAdmin,
  },
  personnel: {
    list: isActive,
    create: isAdmin,
    read: isActive,
    /** Admin: any record. Member: their own record, and only MEMBER_PERSONNEL_FIELDS. */
    change: (m: Membership | null | undefined, personnelSid: string) => isAdmin(m) || (isActive(m) && m!.personnelSid === personnelSid),
    changeFields: (m: Membership, personnelSid: string, fields: string[]) =>
      isAdmin(m) || (m.personnelSid === personnelSid && m.role === 'member'
        && fields.every((f) => (MEMBER_PERSONNEL_FIELDS as readonly string[]).includes(f))),
  },
};
