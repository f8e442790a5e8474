import { useEffect, useId, useState, type FormEvent } from 'react';
import { ApiError, acceptInvitation, getInvitation, type Invitation, type Session } from './api.js';
import { formatTime, isoTime } from './format.js';

/** Where the server serves the console (Vite's `base`); the sign-in page. */
export const CONSOLE_HOME = '/console/';
/** The page invitation emails link to; the token follows `#`. */
export const INVITATION_PAGE = /^\/console\/invitation\/?$/;

/** A link's token: 32 random bytes in base64url, after `#` (never sent with the page request). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** The server's rule for every console password (AcceptInvitationInput), counted in code points as it counts them. */
const MIN_PASSWORD = 12;

type View = { kind: 'loading' } | { kind: 'ready'; invitation: Invitation } | { kind: 'refused'; error: ApiError };

const asApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(0, 'ClientError', error instanceof Error ? error.message : String(error));

/** The link's own problem (404, 410): the page says the link cannot be used; anything else, that it could not be read. */
const linkRefused = (error: ApiError) => error.status === 404 || error.status === 410;

/**
 * The page an invitation email links to: what the invitation is for, and a password to accept it with. Accepting
 * signs the new user in. A link that names no invitation, or one used or expired, gets a page saying so, in the
 * server's words, and where to go instead.
 */
export function AcceptInvitation({ token, onAccepted }: { token: string; onAccepted(session: Session): void }) {
  const [view, setView] = useState<View>({ kind: 'loading' });

  useEffect(() => {
    if (!TOKEN.test(token)) {
      setView({ kind: 'refused', error: new ApiError(404, 'NotFound', 'This invitation link is incomplete: open the whole link of the invitation email.') });
      return;
    }
    let latest = true;
    getInvitation(token).then(
      (invitation) => latest && setView({ kind: 'ready', invitation }),
      (error: unknown) => latest && setView({ kind: 'refused', error: asApiError(error) }),
    );
    return () => {
      latest = false;
    };
  }, [token]);

  if (view.kind === 'loading') {
    return (
      <main className="sign-in" aria-busy="true">
        <p className="muted">Reading the invitation…</p>
      </main>
    );
  }
  if (view.kind === 'refused') return <Refused error={view.error} />;
  return <AcceptForm token={token} invitation={view.invitation} onAccepted={onAccepted} onRefused={(error) => setView({ kind: 'refused', error })} />;
}

function Refused({ error }: { error: ApiError }) {
  return (
    <main className="sign-in invitation">
      <h1>{linkRefused(error) ? 'This invitation link cannot be used' : 'The invitation could not be read'}</h1>
      <p className="banner banner-error" role="alert">
        {error.message}
      </p>
      <p>
        <a href={CONSOLE_HOME}>Go to the sign-in page</a>
        {linkRefused(error) ? ' if you have an account already, or ask the organization to invite you again.' : ', or open the link again later.'}
      </p>
    </main>
  );
}

function AcceptForm({ token, invitation, onAccepted, onRefused }: { token: string; invitation: Invitation; onAccepted(session: Session): void; onRefused(error: ApiError): void }) {
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const emailId = useId();
  const passwordId = useId();
  const repeatedId = useId();
  const hintId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if ([...password].length < MIN_PASSWORD) return setProblem(`Choose a password of at least ${MIN_PASSWORD} characters.`);
    if (password !== repeated) return setProblem('The two passwords differ: type the same password twice.');
    setProblem(null);
    setBusy(true);
    try {
      const session = await acceptInvitation(token, password);
      setPassword('');
      setRepeated('');
      onAccepted(session);
    } catch (cause) {
      const error = asApiError(cause);
      // Used or expired meanwhile (another tab accepted it): the link's page says so. Anything else stays on the form.
      if (linkRefused(error)) onRefused(error);
      else setProblem(`${error.status ? `Error ${error.status}: ` : ''}${error.message}`);
    } finally {
      setBusy(false);
    }
  };

  const groups = invitation.groups.map((group) => `${group.name} (${group.policy})`).join(', ');
  return (
    <main className="sign-in invitation">
      <h1>Join {invitation.organization.name}</h1>
      <p>
        You are invited to the compliance console of <strong>{invitation.organization.name}</strong> as <strong>{invitation.email}</strong>, as a member of{' '}
        {invitation.groups.length === 1 ? 'the group' : 'the groups'} {groups}.
      </p>
      <p className="muted">
        {invitation.expires_at === null ? (
          'The invitation does not expire.'
        ) : (
          <>
            The invitation expires on <time dateTime={isoTime(invitation.expires_at)}>{formatTime(invitation.expires_at)}</time>.
          </>
        )}
      </p>
      {problem && (
        <p className="banner banner-error" role="alert">
          {problem}
        </p>
      )}
      <form onSubmit={submit} aria-label="Accept the invitation">
        <label htmlFor={emailId}>Email address</label>
        <input id={emailId} name="email" type="email" autoComplete="username" readOnly value={invitation.email} />
        <label htmlFor={passwordId}>Choose a password</label>
        <input
          id={passwordId}
          name="password"
          type="password"
          autoComplete="new-password"
          required
          maxLength={1024}
          aria-describedby={hintId}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <p id={hintId} className="muted hint">
          At least {MIN_PASSWORD} characters. You sign in with it and {invitation.email} from now on.
        </p>
        <label htmlFor={repeatedId}>Repeat the password</label>
        <input id={repeatedId} name="repeated" type="password" autoComplete="new-password" required maxLength={1024} value={repeated} onChange={(event) => setRepeated(event.target.value)} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Accepting…' : 'Accept and sign in'}
        </button>
      </form>
    </main>
  );
}
