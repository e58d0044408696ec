// Writing a notification: recipients chosen by name from the organization's members (a
// native input with suggestions: typing filters them, Enter or "Add" takes one), a subject,
// a message, and whether to email it. A member mentioned in the message the way cells
// mention (@ and their email, or @ and their personnel sid) receives it too.
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Button, Checkbox, ErrorMessage, Notice, TextArea, TextField } from '../../../components/ui';
import { ApiError } from '../../../lib/api/client';
import { useRecipientChoices, useSendNotification, type NotificationDetail, type PersonChoice } from '../api/notifications';

// As the service reads mentions (src/modules/notifications/mentions.ts): "@" not preceded by a character of an address.
const SID_MENTION = /(?<![0-9A-Za-z@._%+-])@([0-9A-Za-z]{16})(?![0-9A-Za-z@._%+-])/g;
const EMAIL_MENTION = /(?<![0-9A-Za-z@._%+-])@([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)/g;

/** The members a text mentions. */
export function mentionedIn(text: string, people: PersonChoice[]): PersonChoice[] {
  if (!text.includes('@')) return [];
  const sids = new Set([...text.matchAll(SID_MENTION)].map((m) => m[1]));
  const emails = new Set([...text.matchAll(EMAIL_MENTION)].map((m) => m[1].toLowerCase()));
  return people.filter((p) => sids.has(p.sid) || emails.has(p.email.toLowerCase()));
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
  const people = useRecipientChoices(orgSid, true);
  const send = useSendNotification(orgSid);
  const listId = useId();
  const [to, setTo] = useState<PersonChoice[]>(replyTo?.From ? [{ sid: replyTo.From.sid, name: replyTo.From.name, email: '' }] : []);
  const [draft, setDraft] = useState('');
  const [pickError, setPickError] = useState<string | null>(null);
  const [body, setBody] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const choices = people.data ?? [];

  const add = () => {
    const text = draft.trim().toLowerCase();
    if (!text) return;
    if (!people.data) {
      setPickError('The members are still loading: try again in a moment.');
      return;
    }
    const found =
      choices.find((p) => choiceLabel(p).toLowerCase() === text) ??
      choices.find((p) => p.email.toLowerCase() === text) ??
      (choices.filter((p) => p.name.toLowerCase() === text).length === 1 ? choices.find((p) => p.name.toLowerCase() === text) : undefined) ??
      (choices.filter((p) => p.name.toLowerCase().includes(text)).length === 1 ? choices.find((p) => p.name.toLowerCase().includes(text)) : undefined);
    if (!found) {
      setPickError(`No single member matches "${draft.trim()}": choose one from the suggestions.`);
      return;
    }
    setPickError(null);
    setDraft('');
    setTo((old) => (old.some((p) => p.sid === found.sid) ? old : [...old, found]));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      add();
    }
  };
  const mentioned = mentionedIn(body, choices).filter((p) => !to.some((t) => t.sid === p.sid));
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const recipients = [...to, ...mentioned];
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
    <form onSubmit={onSubmit} className="form compose" aria-label={replyTo ? 'Reply' : 'Compose'}>
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
            hint={people.isPending ? 'Loading the members…' : 'Type a name; Enter adds the suggestion.'}
          />
          <Button onClick={add}>Add recipient</Button>
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
