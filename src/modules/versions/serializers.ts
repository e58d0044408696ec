import type { Serializer } from '../../core/resource.js';
import type { Membership } from '../../core/access.js';
import { permissions } from '../../core/permissions.js';
import { isValidVersion, type VersionRow } from './repository.js';

/** "Row name (3)": the row's name at that version, then the version number. */
export function versionName(v: Pick<VersionRow, 'data' | 'version'>): string {
  return `${String(v.data?.name ?? '')} (${v.version})`;
}

function authorName(v: VersionRow): string {
  return `${v.first_name ?? ''} ${v.last_name ?? ''}`.trim() || (v.email ?? '');
}

/** A version in a list shape; `detail` is the spec's fuller list shape (with data). */
export function serializeVersion(v: VersionRow, serializer: Serializer, viewer: Membership) {
  if (serializer === 'name') return { sid: v.sid, name: versionName(v) };
  const record = {
    sid: v.sid,
    name: versionName(v),
    hash: v.hash,
    previousHash: v.previousHash,
    version: v.version,
    activity_message: v.activity_message,
    commit: v.commit,
    is_valid: isValidVersion(v),
    updated_by: authorName(v),
    date_created: v.date_created,
    change_permission: permissions.version.change(viewer, v.permission),
  };
  return serializer === 'list' ? record : { ...record, data: v.data };
}

/** The version detail (spec: data, updated_by as {sid, first_name, last_name, email}). */
export function serializeVersionDetail(v: VersionRow, viewer: Membership) {
  return {
    sid: v.sid,
    name: versionName(v),
    hash: v.hash,
    previousHash: v.previousHash,
    version: v.version,
    data: v.data,
    activity_message: v.activity_message,
    updated_by: { sid: v.updated_by_sid, first_name: v.first_name ?? '', last_name: v.last_name ?? '', email: v.email ?? '' },
    date_created: v.date_created,
    date_updated: v.date_updated,
    change_permission: permissions.version.change(viewer, v.permission),
  };
}
