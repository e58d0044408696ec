// The one permission catalog: what each role may do with each resource. Lists use it
// for add_permission, records for change_permission, and routes to refuse (403).
import { sql, type SQL } from 'drizzle-orm';
import type { Membership, ProjectRole } from './access.js';
import { readsProject as readsProjectRule } from './rules.js';

const isAdmin = (m: Membership | null | undefined) => m?.role === 'admin';
const isActive = (m: Membership | null | undefined) => m?.role === 'admin' || m?.role === 'member';
const canEdit = (r: ProjectRole | null | undefined) => r === 'admin' || r === 'edit';
/** Reading project records (core/rules.ts, beside its SQL): an organization Admin reads everything; others need a project role. */
const readsProject = readsProjectRule.test;

/** The personnel fields a Member may change on their own record (spec: Personnel, PATCH). */
export const MEMBER_PERSONNEL_FIELDS = [
  'first_name', 'last_name', 'email', 'metadata', 'dashboard', 'should_receive_weekly_digest',
  'should_receive_statement_digest', 'should_receive_mention_notification',
  'should_receive_record_change_notification', 'should_receive_notification_email',
] as const;

/** The administrative personnel fields only an Admin may change (spec: Personnel, PATCH body). */
export const ADMIN_PERSONNEL_FIELDS = ['title', 'date_start', 'date_end', 'is_administrator', 'is_archived'] as const;

export const permissions = {
  project: {
    create: isAdmin,
    /** Whether the caller's project list holds every project of the organization (otherwise only those they hold a role in). */
    listAll: isAdmin,
    read: readsProject,
    change: (m: Membership, r: ProjectRole | null) => isAdmin(m) || (isActive(m) && r === 'admin'),
  },
  /** Project membership is managed by the organization's Admins and the project's Admins. */
  projectMember: {
    read: readsProject,
    manage: (m: Membership, r: ProjectRole | null) => isAdmin(m) || (isActive(m) && r === 'admin'),
  },
  /** Tables, columns and organization widgets: every member reads them, Admins define them. */
  schema: {
    read: isActive,
    change: isAdmin,
  },
  /**
   * Saved filters (Labii's Filter): every active member saves them; each is read by its
   * owner, the personnel it names in `users` and the organization's Admins, and changed or
   * deleted by its owner or an Admin.
   */
  filter: {
    create: isActive,
    read: (m: Membership, f: { owner_sid: string | null; users: string[] }) =>
      isAdmin(m) || (isActive(m) && (f.owner_sid === m.personnelSid || f.users.includes(m.personnelSid))),
    change: (m: Membership, f: { owner_sid: string | null }) => isAdmin(m) || (isActive(m) && f.owner_sid === m.personnelSid),
  },
  /** The activity log (Labii's Activity): the organization's Admins. */
  activity: {
    read: isAdmin,
  },
  /** Widgets: built-in ones (no organization) are read by every user and changed by no one; an organization's own like `schema`. */
  widget: {
    read: isActive,
    create: isAdmin,
    change: (m: Membership | null | undefined, isBuiltin: boolean) => !isBuiltin && isAdmin(m),
  },
  row: {
    read: readsProject,
    create: (m: Membership, r: ProjectRole | null) => isActive(m) && canEdit(r),
    /** name and description */
    change: (m: Membership, r: ProjectRole | null) => isActive(m) && canEdit(r),
    /** is_locked and is_archived */
    changeState: (m: Membership, r: ProjectRole | null) => isActive(m) && r === 'admin',
  },
  /** Cells (spec: GET Admin and project roles; POST/PATCH Project Admin and Edit, subject to the row's state). */
  cell: {
    read: readsProject,
    write: (m: Membership, r: ProjectRole | null) => isActive(m) && canEdit(r),
  },
  /** Sections of a row (Labii: GET Admin and project roles; POST/PATCH Project Admin and Edit, subject to the row's state). */
  section: {
    read: readsProject,
    write: (m: Membership, r: ProjectRole | null) => isActive(m) && canEdit(r),
    /** Deleting one (Labii: Admin): the row's Project Admin; the deletion is a version of the row. */
    delete: (m: Membership, r: ProjectRole | null) => isActive(m) && r === 'admin',
  },
  /** Versions (spec: GET Admin and project roles; PATCH of commit by Project Admin and Edit). */
  version: {
    read: readsProject,
    change: (m: Membership, r: ProjectRole | null) => isActive(m) && canEdit(r),
  },
  /** Workflows (spec: GET Admin and Member; POST, PATCH, DELETE Admin, so only an Admin triggers one). */
  workflow: {
    read: isActive,
    change: isAdmin,
    trigger: isAdmin,
  },
  /** Steps (spec: GET Admin and Member; POST, PATCH, DELETE Admin). */
  step: {
    read: isActive,
    change: isAdmin,
  },
  /**
   * Executions of workflows: read like their rows (an Admin every one, others those of
   * rows of their projects); continued (variables, events) by whoever may trigger the workflow.
   */
  execution: {
    read: readsProject,
    continue: isAdmin,
  },
  /**
   * Files (issue 25): every active member of the organization uploads and reads its files
   * (part b narrows reading to the rows that hold them); the uploader or an Admin deletes one.
   */
  file: {
    upload: isActive,
    read: isActive,
    delete: (m: Membership | null | undefined, uploadedBy: string) => isAdmin(m) || (isActive(m) && m!.personnelSid === uploadedBy),
  },
  /** The credit ledger: Admins. */
  credits: {
    read: isAdmin,
  },
  organization: {
    read: isActive,
    change: isAdmin,
  },
  /**
   * Notifications (spec: every endpoint is open to "User": any active member of the
   * organization). A notification is one recipient's copy: the recipient reads, marks
   * and deletes it; its sender may read it; to anyone else it does not exist (404).
   */
  notification: {
    list: isActive,
    send: isActive,
    /** The recipient reads their copy until they delete it; the sender reads what they sent. */
    read: (viewerPersonnelSid: string, n: { recipient_sid: string; sender_sid: string | null; is_deleted: boolean }) =>
      (n.recipient_sid === viewerPersonnelSid && !n.is_deleted) || n.sender_sid === viewerPersonnelSid,
    /** The same rule in SQL, for the notifications row aliased `alias` in a query. */
    readSql: (viewerPersonnelSid: string, alias: string): SQL => {
      const n = sql.identifier(alias);
      return sql`((${n}.recipient_sid = ${viewerPersonnelSid} AND NOT ${n}.is_deleted_by_recipient) OR ${n}.sender_sid = ${viewerPersonnelSid})`;
    },
    /** PATCH (is_read) and DELETE: the recipient of this copy only. */
    change: (viewerPersonnelSid: string, n: { recipient_sid: string; is_deleted?: boolean }) =>
      n.recipient_sid === viewerPersonnelSid && !n.is_deleted,
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
