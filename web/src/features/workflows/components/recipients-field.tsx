// A notify step's recipients, picked by name: the people chosen (each removable), the
// organization's people to tick (searched on the server when there are many), and
// optionally a reference that names personnel when the step runs ({{variables.reviewers}}).
// The form gets the chosen sids as `setting.to` and the reference as `setting.to-other`.
import { useQueries } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { TextField } from '../../../components/ui';
import { useSearchDraft } from '../../../lib/search-draft';
import { personnelDetailQuery, usePersonnelNames } from '../../../lib/api/personnel';

const SID = /^[0-9A-Za-z]{16}$/;

/** The step's `to` as personnel sids and a reference text (what is not a sid). */
export function splitRecipients(given: unknown): { sids: string[]; reference: string } {
  const items = Array.isArray(given)
    ? given.map((v) => (typeof v === 'string' ? v : String((v as { sid?: unknown }).sid ?? '')))
    : typeof given === 'string'
      ? given.split(/[\s,]+/)
      : [];
  const sids = items.filter((item) => SID.test(item));
  const rest = items.filter((item) => item && !SID.test(item));
  // A text without any sid (a reference such as {{variables.reviewers}}) stays as it was written.
  const reference = typeof given === 'string' && !sids.length ? given.trim() : rest.join(', ');
  return { sids: [...new Set(sids)], reference };
}

interface RecipientsFieldProps {
  orgSid: string;
  initial: unknown;
  errors?: string[];
}

export function RecipientsField({ orgSid, initial, errors }: RecipientsFieldProps) {
  const id = useId();
  const [{ sids: initialSids, reference }] = useState(() => splitRecipients(initial));
  const [chosen, setChosen] = useState<string[]>(initialSids);
  const [search, setSearch] = useState('');
  const [draft, setDraft] = useSearchDraft(search, setSearch);
  const people = usePersonnelNames(orgSid, search.trim());
  const found = people.data?.results ?? [];
  const total = people.data?.count ?? 0;
  // Names of chosen people not among those found (a step saved earlier, another search).
  const unknown = chosen.filter((sid) => !found.some((p) => p.sid === sid));
  const named = useQueries({ queries: unknown.map((sid) => personnelDetailQuery(sid)) });
  const nameOf = (sid: string) =>
    found.find((p) => p.sid === sid)?.name ?? named[unknown.indexOf(sid)]?.data?.name ?? (named[unknown.indexOf(sid)]?.error ? 'someone no longer found' : '…');
  const toggle = (sid: string, on: boolean) => setChosen((old) => (on ? (old.includes(sid) ? old : [...old, sid]) : old.filter((s) => s !== sid)));

  return (
    <fieldset aria-describedby={errors ? `${id}-errors` : undefined}>
      <legend>Recipients</legend>
      {chosen.map((sid) => (
        <input key={sid} type="hidden" name="setting.to" value={sid} />
      ))}
      {chosen.length > 0 ? (
        <ul className="chips" aria-label="Chosen recipients">
          {chosen.map((sid) => (
            <li key={sid}>
              {nameOf(sid)}
              <button type="button" className="button chip-remove" aria-label={`Remove ${nameOf(sid)}`} onClick={() => toggle(sid, false)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="hint">Nobody chosen yet: tick the people below.</p>
      )}
      {search || total > found.length ? (
        <TextField
          label="Find a person"
          type="search"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          hint={search ? `${total} found${total > found.length ? `, the first ${found.length} listed` : ''}.` : `${total} people: the first ${found.length} are listed; type a name or email to find others.`}
        />
      ) : null}
      <div role="group" aria-label="People of the organization" className="pick-list">
        {found.map((person) => (
          <div className="checkbox" key={person.sid}>
            <input id={`${id}-${person.sid}`} type="checkbox" checked={chosen.includes(person.sid)} onChange={(event) => toggle(person.sid, event.target.checked)} />
            <label htmlFor={`${id}-${person.sid}`}>{person.name}</label>
          </div>
        ))}
        {people.isSuccess && found.length === 0 && <p className="hint">Nobody&apos;s name or email contains “{search}”.</p>}
      </div>
      <TextField
        label="Recipients from a reference"
        name="setting.to-other"
        defaultValue={reference}
        hint="Optional: a reference that names people when the step runs, such as {{variables.reviewers}}."
      />
      {errors && (
        <span id={`${id}-errors`} className="field-error">
          {errors.join(' ')}
        </span>
      )}
    </fieldset>
  );
}
