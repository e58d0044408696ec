// The person's own email and digest settings in the organization (fields of their
// personnel record, which only they change).
import { useState, type FormEvent } from 'react';
import { Button, Checkbox, ErrorMessage, Loading, Notice } from '../../../components/ui';
import { useSession } from '../../../lib/api/session';
import { useMyPersonnel } from '../../../lib/api/organizations';
import { usePersonnelDetail, useUpdatePersonnel, type PersonnelChanges } from '../../../lib/api/personnel';

export const NOTIFICATION_SETTINGS = [
  ['should_receive_notification_email', 'Email me every notification'],
  ['should_receive_weekly_digest', 'Weekly digest of unread notifications'],
  ['should_receive_statement_digest', 'Statement digest'],
  ['should_receive_mention_notification', 'Notify me when someone mentions me in a cell'],
  ['should_receive_record_change_notification', 'Notify me when someone changes a row I created'],
] as const;

export function NotificationSettings({ orgSid }: { orgSid: string }) {
  const session = useSession();
  const me = useMyPersonnel(orgSid, session.data?.sid ?? '');
  const record = usePersonnelDetail(me.data?.sid ?? null);
  const update = useUpdatePersonnel(orgSid);
  const [saved, setSaved] = useState(false);
  if (me.isPending || (me.data && record.isPending)) return <Loading />;
  if (me.error || record.error) return <ErrorMessage error={me.error ?? record.error} />;
  if (!me.data || !record.data) return <p>You are not a member of this organization.</p>;
  const person = record.data;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const changes: PersonnelChanges = {};
    for (const [field] of NOTIFICATION_SETTINGS) changes[field] = data.get(field) === 'on';
    setSaved(false);
    update.mutate({ sid: person.sid, changes }, { onSuccess: () => setSaved(true) });
  };
  return (
    <form onSubmit={onSubmit} className="form" aria-label="Notification settings">
      <fieldset>
        <legend>Notifications and email (to {person.email})</legend>
        {NOTIFICATION_SETTINGS.map(([field, label]) => (
          <Checkbox key={`${field}:${String(person[field])}`} name={field} label={label} defaultChecked={person[field]} />
        ))}
      </fieldset>
      <ErrorMessage error={update.error} />
      {saved && <Notice>Your settings are saved.</Notice>}
      <Button type="submit" variant="primary" disabled={update.isPending}>
        Save settings
      </Button>
    </form>
  );
}
