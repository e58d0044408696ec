// The account screens: sign in, sign up, forgotten password, reset (the emailed link),
// email proof (the emailed link) and unlock (the link mailed when sign-ins are slowed down).
import { useEffect, useRef, type FormEvent } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { ApiError } from '../../../lib/api/client';
import { Button, ErrorMessage, Notice, TextField } from '../../../components/ui';
import { useForgotPassword, useResetPassword, useSignIn, useSignUp, useUnlock } from '../../../lib/api/session';
import { useVerifyEmail } from '../api/verify-email';
import { useTagInvitation } from '../../../lib/api/invitations';

function fieldErrors(error: unknown, field: string): string[] | undefined {
  return error instanceof ApiError ? error.fields[field] : undefined;
}

function formValues(event: FormEvent<HTMLFormElement>): Record<string, string> {
  event.preventDefault();
  return Object.fromEntries([...new FormData(event.currentTarget).entries()].map(([k, v]) => [k, String(v)]));
}

function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth">
      <p className="brand">Records</p>
      <h1>{title}</h1>
      {children}
    </main>
  );
}

/** Sign in with email and password. */
export function SignInPage({ redirect }: { redirect?: string }) {
  const signIn = useSignIn();
  const navigate = useNavigate();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const { email, password } = formValues(event);
    signIn.mutate(
      { username: email, password },
      { onSuccess: () => void navigate({ to: redirect && redirect.startsWith('/') ? redirect : '/' }) },
    );
  };
  return (
    <AuthFrame title="Sign in">
      <form onSubmit={onSubmit} className="form">
        <TextField label="Email" name="email" type="email" autoComplete="username" required autoFocus />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required />
        <ErrorMessage error={signIn.error} />
        <Button type="submit" variant="primary" disabled={signIn.isPending}>
          Sign in
        </Button>
      </form>
      <p>
        <Link to="/forgot-password">Forgot your password?</Link> · <Link to="/signup">Create an account</Link>
      </p>
    </AuthFrame>
  );
}

/**
 * Create an account, then sign in with it. The app then shows the screen that waits for the
 * proof of the email (router.tsx, SignedIn), which carries on by itself once it lands.
 */
export function SignUpPage() {
  const signUp = useSignUp();
  const signIn = useSignIn();
  const navigate = useNavigate();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const { email, password, first_name, last_name } = formValues(event);
    signUp.mutate(
      { email, password, first_name, last_name },
      { onSuccess: () => signIn.mutate({ username: email, password }, { onSuccess: () => void navigate({ to: '/' }) }) },
    );
  };
  const error = signUp.error ?? signIn.error;
  return (
    <AuthFrame title="Create an account">
      <form onSubmit={onSubmit} className="form">
        <TextField label="First name" name="first_name" autoComplete="given-name" required errors={fieldErrors(error, 'first_name')} />
        <TextField label="Last name" name="last_name" autoComplete="family-name" required errors={fieldErrors(error, 'last_name')} />
        <TextField label="Email" name="email" type="email" autoComplete="email" required errors={fieldErrors(error, 'email')} />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          errors={fieldErrors(error, 'password')}
        />
        {error instanceof ApiError && Object.keys(error.fields).length ? null : <ErrorMessage error={error} />}
        <Button type="submit" variant="primary" disabled={signUp.isPending || signIn.isPending}>
          Create account
        </Button>
      </form>
      <p>
        Have an account? <Link to="/signin">Sign in</Link>
      </p>
    </AuthFrame>
  );
}

/** Ask for a reset link. */
export function ForgotPasswordPage() {
  const forgot = useForgotPassword();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const { email } = formValues(event);
    forgot.mutate({ email });
  };
  return (
    <AuthFrame title="Forgot your password?">
      {forgot.isSuccess ? (
        <Notice>If an account has this email, a link to reset its password is on its way.</Notice>
      ) : (
        <form onSubmit={onSubmit} className="form">
          <TextField label="Email" name="email" type="email" autoComplete="email" required />
          <ErrorMessage error={forgot.error} />
          <Button type="submit" variant="primary" disabled={forgot.isPending}>
            Send reset link
          </Button>
        </form>
      )}
      <p>
        <Link to="/signin">Back to sign in</Link>
      </p>
    </AuthFrame>
  );
}

/**
 * The emailed reset link's page: a new password for the tag. An invitation's tag (the server
 * says whose) is named first: who invited the person to which organization; once the password
 * is set, signing in leads into that organization.
 */
export function ResetPasswordPage({ tag }: { tag?: string }) {
  const reset = useResetPassword();
  const invitation = useTagInvitation(tag);
  const invited = invitation.data ?? null;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const { password } = formValues(event);
    if (tag) reset.mutate({ tag, password });
  };
  return (
    <AuthFrame title={invited ? `${invited.invited_by ?? 'Someone'} invited you to ${invited.organization.name}` : 'Choose a new password'}>
      {invited && !reset.isSuccess && (
        <p>
          Choose a password for {invited.email} to accept. Then sign in, and {invited.organization.name} opens with the projects you may see.
        </p>
      )}
      {!tag ? (
        <p role="alert" className="error">
          This link has no reset tag: open the link from the email again.
        </p>
      ) : reset.isSuccess ? (
        <>
          <Notice>{invited ? `Your password is set and you joined ${invited.organization.name}.` : 'Your password is changed.'}</Notice>
          <p>
            <Link to="/signin" search={invited ? { redirect: `/o/${invited.organization.sid}` } : {}} className="button button-primary">
              Sign in
            </Link>
          </p>
        </>
      ) : invitation.isPending && invitation.fetchStatus !== 'idle' ? (
        <p role="status">Checking the link…</p>
      ) : (
        <form onSubmit={onSubmit} className="form">
          <TextField
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            errors={fieldErrors(reset.error, 'password')}
          />
          {reset.error instanceof ApiError && reset.error.fields.password ? null : <ErrorMessage error={reset.error} />}
          <Button type="submit" variant="primary" disabled={reset.isPending}>
            Set password
          </Button>
        </form>
      )}
    </AuthFrame>
  );
}

/** Posts an emailed link's tag once: a tag is single-use, and an effect may run twice (React's StrictMode in development). */
function usePostOnce(tag: string | undefined, post: (tag: string) => void) {
  const sent = useRef<string | null>(null);
  useEffect(() => {
    if (tag && sent.current !== tag) {
      sent.current = tag;
      post(tag);
    }
  }, [tag, post]);
}

/** An emailed link opened without its tag. */
function NoTag() {
  return (
    <p role="alert" className="error">
      This link has no tag: open the link from the email again.
    </p>
  );
}

/** The emailed proof link's page: proves the email at once. */
export function VerifyEmailPage({ tag }: { tag?: string }) {
  const verify = useVerifyEmail();
  const { mutate } = verify;
  usePostOnce(tag, mutate);
  return (
    <AuthFrame title="Prove your email">
      {!tag && <NoTag />}
      {verify.isPending && <p role="status">Checking the link…</p>}
      {verify.isSuccess && <Notice>{verify.data.detail}</Notice>}
      <ErrorMessage error={verify.error} />
      <p>
        <Link to="/" className={verify.isSuccess ? 'button button-primary' : undefined}>
          Continue
        </Link>
      </p>
    </AuthFrame>
  );
}

/** The emailed unlock link's page: trusts this browser for the account at once, then offers to sign in. */
export function UnlockPage({ tag }: { tag?: string }) {
  const unlock = useUnlock();
  const { mutate } = unlock;
  usePostOnce(tag, mutate);
  return (
    <AuthFrame title="Sign in despite the slow-down">
      {!tag && <NoTag />}
      {unlock.isPending && <p role="status">Checking the link…</p>}
      {unlock.isSuccess && <Notice>This browser may sign in to your account now, whatever others try.</Notice>}
      <ErrorMessage error={unlock.error} />
      <p>
        <Link to="/signin">Sign in</Link>
      </p>
    </AuthFrame>
  );
}
