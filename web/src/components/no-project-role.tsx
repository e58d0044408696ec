// Why a member sees no project: the organization's home and a table's page say it alike.
import { useOrganization } from '../lib/api/organizations';
import { useOrganizationAdmins } from '../lib/api/personnel';
import { Button } from './ui';

/**
 * A member sees only the projects where they hold a role: with none, say so (the
 * organization may well have projects) and who can give them one.
 */
export function NoProjectRole({ orgSid, onCheckAgain, checking }: { orgSid: string; onCheckAgain?: () => void; checking?: boolean }) {
  const organization = useOrganization(orgSid);
  const admins = useOrganizationAdmins(orgSid);
  const names = admins.data?.results.map((person) => `${person.name} (${person.email})`) ?? [];
  const more = (admins.data?.count ?? 0) - names.length;
  return (
    <div className="empty" role="note">
      <p>
        You have no role in any project of {organization.data?.name ?? 'this organization'} yet, so no project is listed here:
        each project shows only to its members. A project&apos;s Admins, or an Admin of the organization, can give you a role in one
        (on the project&apos;s page, Members).
      </p>
      {names.length > 0 && (
        <p>
          Admins of {organization.data?.name ?? 'the organization'}: {names.join(', ')}
          {more > 0 ? ` and ${more} more` : ''}.
        </p>
      )}
      {onCheckAgain && (
        <Button onClick={onCheckAgain} disabled={checking}>
          Check again
        </Button>
      )}
    </div>
  );
}
