// Said before something priced is made (a widget with a price, a column through one) when
// the organization's credits do not cover one write: every such write would be refused.
// It says how to get credits: an administrator of the instance grants them (the person
// themself, on the Administration screen, when they are one).
import { Link } from '@tanstack/react-router';
import { useSession } from '../lib/api/session';
import { useOrganization } from '../lib/api/organizations';

/** Cents of "$12.50", "12.50" or "12"; null when it is not an amount. */
export function cents(amount: string): number | null {
  const match = /^\$?(\d+)(?:\.(\d{1,2}))?$/.exec(amount.trim());
  return match ? Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0')) : null;
}

/** A note (role="note") when `price` (e.g. "0.50" or "$0.50") is more than the organization's credits; nothing otherwise. */
export function CreditsWarning({ orgSid, price, what }: { orgSid: string; price: string; what: string }) {
  const organization = useOrganization(orgSid);
  const session = useSession();
  const wanted = cents(price);
  const have = organization.data ? cents(organization.data.credits) : null;
  if (!organization.data || wanted === null || have === null || wanted === 0 || have >= wanted) return null;
  const { name, credits, credits_contact: contact } = organization.data;
  return (
    <p role="note" className="warning">
      {name} has {credits} of credits: every write through {what} (${(wanted / 100).toFixed(2)} each) will be refused until it has
      more.{' '}
      {session.data?.is_instance_admin ? (
        <>
          You administer this Records Service: grant credits on the <Link to="/administration">Administration</Link> screen.
        </>
      ) : (
        <>The administrators of this Records Service grant credits{contact ? `: contact ${contact}` : ''}.</>
      )}
    </p>
  );
}
