// Writing a notification: recipients chosen by name from the organization's members (a
// native input with suggestions, searched on the server as one types: Enter or "Add" takes
// one), a subject, a message, and whether to email it. A member mentioned in the message
// the way cells mention (@ and their email, or @ and their personnel sid) receives it too.
import { useQueries, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Button, Checkbox, ErrorMessage, Notice, TextArea, TextField } from '../../../components/ui';
import { ApiError } from '../../../lib/api/client';
import { useSearchDraft } from '../../../lib/search-draft';
import { recipientBySid, recipientSearch, useRecipientChoices, useSendNotification, type NotificationDetail, type PersonChoice } from '../api/notifications';

// As the service reads mentions (src/modules/notifications/mentions.ts): "@" not preceded by a character of an address.
const SID_MENTION = /(?<![0-9A-Za-z@._%+-])@([0-9A-Za-z]{16})(?![0-9A-Za-z@._%+-])/g;
const EMAIL_MENTION = /(?<![0-9A-Za-z@._%+-])@([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)/g;

/** The personnel sids and emails a text mentions. */
function mentionsIn(text: string): { sids: string[]; emails: string[] } {
  if (!text.includes('@')) return { sids: [], emails: [] };
  return {
    sids: [...new Set([...text.matchAll(SID_MENTION)].map((m) => m[1]))],
    emails: [...new Set([...text.matchAll(EMAIL_MENTION)].map((m) => m[1].toLowerCase()))],
  };
}

/** The members a text mentions, each found on the server (by sid, or by searching their email). */
function useMentioned(orgSid: string, text: string): PersonChoice[] {
  const { sids, emails } = mentionsIn(text);
  const bySid = useQueries({ queries: sids.map((sid) => recipientBySid(sid)) });
  const byEmail = useQueries({ queries: emails.map((email) => recipientSearch(orgSid, email)) });
  const found: PersonChoice[] = [];
  for (const q of bySid) if (q.data) found.push(q.data);
  for (const [i, q] of byEmail.entries()) {
    const person = q.data?.find((p) => p.email.toLowerCase() === emails[i]);
    if (person) found.push(person);
  }
  return found.filter((p, i) => found.findIndex((o) => o.sid === p.sid) === i);
}

/** The one member `text` names among `choices`: a suggestion's label, an email, or a name (whole, or a part only one has). */
function pick(text: string, choices: PersonChoice[]): PersonChoice | undefined {
  const only = (list: PersonChoice[]) => (list.length === 1 ? list[0] : undefined);
  return (
    choices.find((p) => choiceLabel(p).toLowerCase() === text) ??
    choices.find((p) => p.email.toLowerCase() === text) ??
    only(choices.filter((p) => p.name.toLowerCase() === text)) ??
    only(choices.filter((p) => p.name.toLowerCase().includes(text)))
  );
}

const choiceLabel = (person: PersonChoice) => `${person.name} (${person.email})`;

interface ComposeProps {
  orgSid: string;
  /** A reply: its recipients, subject and parent are set from the notification answered. */
  replyTo?: NotificationDetail;
  onSent: (sent: NotificationDetail) => void;
  onCancel?: () => void;
}

export function Compose({ orgSid, replyTo, onSent, onCancel }: ComposeProps) {
  const queryClient = useQueryClient();
  const send = useSendNotification(orgSid);
  const listId = useId();
  const [to, setTo] = useState<PersonChoice[]>(replyTo?.From ? [{ sid: replyTo.From.sid, name: replyTo.From.name, email: '' }] : []);
  // The suggestions follow what is typed, asked of the server once typing pauses.
  const [searched, setSearched] = useState('');
  const [draft, setDraft] = useSearchDraft(searched, setSearched);
  const people = useRecipientChoices(orgSid, searched.trim());
  const [pickError, setPickError] = useState<string | null>(null);
  const [body, setBody] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const choices = searched.trim() ? (people.data ?? []) : [];

  /** Adds the member the draft names (the one found, or null with the reason shown). */
  const add = async (): Promise<PersonChoice | null> => {
    const text = draft.trim().toLowerCase();
    if (!text) return null;
    // A suggestion taken as it is shown; anything else typed is searched for now.
    let found = pick(text, choices);
    if (!found) {
      try {
        found = pick(text, await queryClient.fetchQuery(recipientSearch(orgSid, draft.trim())));
      } catch (error) {
        setPickError(error instanceof Error ? error.message : String(error));
        return null;
      }
    }
    if (!found) {
      setPickError(`No single member matches "${draft.trim()}": choose one from the suggestions.`);
      return null;
    }
    const person = found;
    setPickError(null);
    setDraft('');
    setTo((old) => (old.some((p) => p.sid === person.sid) ? old : [...old, person]));
    return person;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      void add();
    }
  };
  const mentioned = useMentioned(orgSid, body).filter((p) => !to.some((t) => t.sid === p.sid));
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    // A name typed but not yet added (Send pressed before Enter, or before its search
    // answered) is added first, so what the sender sees in the field is who gets it.
    const typed = draft.trim() ? await add() : null;
    if (draft.trim() && !typed) return;
    const added = typed && !to.some((p) => p.sid === typed.sid) ? [typed] : [];
    const recipients = [...to, ...added, ...mentioned.filter((p) => p.sid !== typed?.sid)];
    if (!recipients.length) {
      setPickError('Add at least one recipient.');
      return;
    }
    send.mutate(
      {
        to: recipients.map((p) => ({ sid: p.sid, name: p.name })),
        name: String(data.get('name') ?? ''),
        body,
        parent: replyTo ? { sid: replyTo.sid, name: replyTo.name } : null,
        should_email: data.get('should_email') === 'on',
      },
      {
        onSuccess: (notification) => {
          setSent(`Sent to ${recipients.map((p) => p.name).join(', ')}.`);
          setBody('');
          if (!replyTo) setTo([]);
          onSent(notification);
        },
      },
    );
  };
  const fields = send.error instanceof ApiError ? send.error.fields : {};
  return (
    <form onSubmit={(event) => void onSubmit(event)} className="form compose" aria-label={replyTo ? 'Reply' : 'Compose'}>
      <fieldset>
        <legend>To</legend>
        {to.length ? (
          <ul className="chips" aria-label="Recipients">
            {to.map((person) => (
              <li key={person.sid}>
                {person.name}
                <button type="button" className="button button-plain chip-remove" aria-label={`Remove ${person.name}`} onClick={() => setTo((old) => old.filter((p) => p.sid !== person.sid))}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No recipient yet.</p>
        )}
        <div className="form-inline">
          <TextField
            label="Add a recipient by name"
            list={listId}
            value={draft}
            autoComplete="off"
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={onKeyDown}
            errors={pickError ? [pickError] : fields.to}
            hint="Type a name; Enter adds the suggestion."
          />
          <Button onClick={() => void add()}>Add recipient</Button>
        </div>
        <datalist id={listId}>
          {choices.map((person) => (
            <option key={person.sid} value={choiceLabel(person)} />
          ))}
        </datalist>
        <ErrorMessage error={people.error} />
      </fieldset>
      <TextField label="Subject" name="name" required maxLength={255} defaultValue={replyTo ? `Re: ${replyTo.name.replace(/^Re: /, '')}`.slice(0, 255) : ''} errors={fields.name} />
      <TextArea label="Message" name="body" rows={5} value={body} onChange={(event) => setBody(event.target.value)} errors={fields.body} />
      <p className="hint">Mention a member with @ and their email (@ada@example.org): they receive the message too.</p>
      {mentioned.length ? <p className="hint">Also to the members mentioned: {mentioned.map((p) => p.name).join(', ')}.</p> : null}
      <Checkbox name="should_email" label="Also send it by email" />
      {Object.keys(fields).length ? null : <ErrorMessage error={send.error} />}
      {sent && <Notice>{sent}</Notice>}
      <div className="buttons">
        <Button type="submit" variant="primary" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send'}
        </Button>
        {onCancel && <Button onClick={onCancel}>Cancel</Button>}
      </div>
    </form>
  );
}
