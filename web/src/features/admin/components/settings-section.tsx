// The settings an administrator may change while the service runs: each shows the value in
// force, the environment variable it replaces and its meaning; saving reaches every process
// at once; "Use the environment's value" goes back to the variable's.
import { useState, type FormEvent } from 'react';
import { Button, ErrorMessage, Loading, Notice } from '../../../components/ui';
import { ApiError } from '../../../lib/api/client';
import { useChangeSettings, useInstanceSettings, type InstanceSettings, type SettingsChange } from '../api/admin';
import { shownTime } from './admin-page';

type Name = 'initial_credits' | 'sales_contact' | 'signup_enabled' | 'organizations_per_user';
const LABELS: Record<Name, string> = {
  initial_credits: 'Initial credits of a new organization',
  sales_contact: 'Who to contact for credits',
  signup_enabled: 'Anyone may create an account',
  organizations_per_user: 'Organizations one account may create',
};
const ORDER: Name[] = ['initial_credits', 'sales_contact', 'signup_enabled', 'organizations_per_user'];

const shown = (value: string | number | boolean) => (typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value));

export function SettingsSection() {
  const settings = useInstanceSettings();
  const change = useChangeSettings();
  const [saved, setSaved] = useState<string | null>(null);
  if (settings.isPending) return <Loading />;
  if (settings.error) return <ErrorMessage error={settings.error} />;
  const data = settings.data;
  const fields = change.error instanceof ApiError ? change.error.fields : {};
  const save = (body: SettingsChange, message: string) => {
    setSaved(null);
    change.mutate(body, { onSuccess: () => setSaved(message) });
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body: SettingsChange = {};
    const text = (name: Name) => String(form.get(name) ?? '').trim();
    if (text('initial_credits') !== data.initial_credits.value) body.initial_credits = text('initial_credits');
    if (text('sales_contact') !== data.sales_contact.value) body.sales_contact = text('sales_contact');
    const signup = form.get('signup_enabled') === 'on';
    if (signup !== data.signup_enabled.value) body.signup_enabled = signup;
    const perUser = Number(text('organizations_per_user'));
    if (perUser !== data.organizations_per_user.value) body.organizations_per_user = perUser;
    if (!Object.keys(body).length) {
      setSaved('Nothing changed.');
      return;
    }
    save(body, 'Saved: every process of the service uses the new values from now on.');
  };
  return (
    <section aria-labelledby="admin-settings">
      <h2 id="admin-settings">Settings</h2>
      <p className="muted">
        The service reads these from environment variables when it starts. A value saved here replaces the variable&apos;s at once,
        for every process, and is kept in the database until you go back to the environment&apos;s value. Settings that decide where
        the service listens, where its data and mail go, or how sign-in works are changed only in the environment.
      </p>
      {/* key: the fields start again from the saved values after each save */}
      <form key={data.date_updated ?? 'environment'} onSubmit={onSubmit} className="form settings-form" aria-label="Settings">
        {ORDER.map((name) => (
          <Setting key={name} name={name} setting={data[name]} errors={fields[name]} onReset={() => save({ [name]: null }, `${LABELS[name]}: back to ${data[name].variable}.`)} />
        ))}
        {Object.keys(fields).length ? null : <ErrorMessage error={change.error} />}
        <div className="buttons">
          <Button type="submit" variant="primary" disabled={change.isPending}>
            Save settings
          </Button>
        </div>
      </form>
      {saved && <Notice>{saved}</Notice>}
      {data.updated_by && data.date_updated && (
        <p className="muted">
          Last changed by {data.updated_by.name}, {shownTime(data.date_updated)}.
        </p>
      )}
    </section>
  );
}

interface SettingProps {
  name: Name;
  setting: InstanceSettings[Name];
  errors?: string[];
  onReset: () => void;
}

function Setting({ name, setting, errors, onReset }: SettingProps) {
  const id = `setting-${name}`;
  const describedBy = `${id}-about${errors ? ` ${id}-errors` : ''}`;
  const value = setting.value;
  return (
    <div className="setting">
      {typeof value === 'boolean' ? (
        <div className="checkbox">
          <input id={id} name={name} type="checkbox" defaultChecked={value} aria-describedby={describedBy} />
          <label htmlFor={id}>{LABELS[name]}</label>
        </div>
      ) : (
        <div className="field">
          <label htmlFor={id}>{LABELS[name]}</label>
          <input
            id={id}
            name={name}
            defaultValue={String(value)}
            inputMode={typeof value === 'number' || name === 'initial_credits' ? 'decimal' : undefined}
            required
            aria-invalid={errors ? true : undefined}
            aria-describedby={describedBy}
          />
        </div>
      )}
      <p id={`${id}-about`} className="hint">
        <code>{setting.variable}</code>: {setting.description}{' '}
        {setting.replaced
          ? `Set here; the environment says ${shown(setting.environment_value)}.`
          : 'From the environment.'}
      </p>
      {errors && (
        <span id={`${id}-errors`} className="field-error">
          {errors.join(' ')}
        </span>
      )}
      {setting.replaced && (
        <Button onClick={onReset} aria-label={`Use the environment's value for ${setting.variable}`}>
          Use the environment&apos;s value ({shown(setting.environment_value)})
        </Button>
      )}
    </div>
  );
}
