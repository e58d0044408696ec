// First run (create an organization), the switcher between organizations, and the
// organization's credits.
import { useNavigate } from '@tanstack/react-router';
import type { FormEvent } from 'react';
import { ApiError } from '../../../lib/api/client';
import { Button, ErrorMessage, Loading, TextField } from '../../../components/ui';
import { useCreateOrganization, useOrganization, useOrganizations } from '../../../lib/api/organizations';

/** Creates an organization and opens it. */
export function CreateOrganizationForm({ userSid, firstRun }: { userSid: string; firstRun: boolean }) {
  const create = useCreateOrganization(userSid);
  const navigate = useNavigate();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    create.mutate(
      { name: String(data.get('name')), description: String(data.get('description') ?? '') },
      { onSuccess: (org) => void navigate({ to: '/o/$org', params: { org: org.sid } }) },
    );
  };
  const fields = create.error instanceof ApiError ? create.error.fields : {};
  return (
    <main>
      <h1>{firstRun ? 'Create your organization' : 'New organization'}</h1>
      {firstRun && <p>You are not in an organization yet. Create one: you will be its Admin.</p>}
      <form onSubmit={onSubmit} className="form">
        <TextField label="Organization name" name="name" required errors={fields.name} />
        <TextField label="Description" name="description" errors={fields.description} />
        {Object.keys(fields).length ? null : <ErrorMessage error={create.error} />}
        <Button type="submit" variant="primary" disabled={create.isPending}>
          Create organization
        </Button>
      </form>
    </main>
  );
}

/** A select of the person's organizations; choosing one opens it. */
export function OrganizationSwitcher({ userSid, current }: { userSid: string; current: string }) {
  const organizations = useOrganizations(userSid);
  const navigate = useNavigate();
  const list = organizations.data?.results ?? [];
  if (list.length < 2) return null;
  return (
    <label className="switcher">
      Organization{' '}
      <select value={current} onChange={(event) => void navigate({ to: '/o/$org', params: { org: event.target.value } })}>
        {list.map((org) => (
          <option key={org.sid} value={org.sid}>
            {org.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The organization's name and its credits, as every member sees them. */
export function OrganizationBadge({ orgSid }: { orgSid: string }) {
  const organization = useOrganization(orgSid);
  if (organization.isPending) return <Loading />;
  if (organization.error) return <ErrorMessage error={organization.error} />;
  return (
    <span className="org-badge">
      <strong>{organization.data.name}</strong>{' '}
      <span className="credits" aria-live="polite">
        Credits: <output aria-label="Credits">{organization.data.credits}</output>
      </span>
    </span>
  );
}
