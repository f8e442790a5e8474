import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, forgetSession, getSession, signOut, type Session } from './api.js';
import { AcceptInvitation, CONSOLE_HOME, INVITATION_PAGE } from './AcceptInvitation.js';
import { ApiClientsPage } from './ApiClientsPage.js';
import { ErrorBanner } from './ErrorBanner.js';
import { SignIn } from './SignIn.js';

type State =
  | { kind: 'loading' }
  | { kind: 'signed-out'; notice?: string }
  | { kind: 'signed-in'; session: Session }
  | { kind: 'invitation'; token: string };

/** The invitation page's token, when the address is that page's (`/console/invitation#<token>`). */
function invitationToken(): string | null {
  if (!INVITATION_PAGE.test(window.location.pathname)) return null;
  const fragment = window.location.hash.slice(1);
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

function initialState(): State {
  const token = invitationToken();
  return token === null ? { kind: 'loading' } : { kind: 'invitation', token };
}

const asApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(0, 'ClientError', error instanceof Error ? error.message : String(error));

export function App() {
  const [state, setState] = useState<State>(initialState);
  const [error, setError] = useState<ApiError | null>(null);

  const signedIn = useRef(false);
  useEffect(() => {
    signedIn.current = state.kind === 'signed-in';
  }, [state.kind]);

  // Every failure ends up here. A 401 on a signed-in page means the session expired or was ended elsewhere: the user
  // is sent to sign in again with a note saying why, instead of a table that can no longer load.
  const report = useCallback((cause: unknown) => {
    const failure = asApiError(cause);
    if (failure.status === 401 && signedIn.current) {
      forgetSession();
      setError(null);
      setState({ kind: 'signed-out', notice: 'Your session has ended. Sign in again to continue.' });
      return;
    }
    setError(failure);
  }, []);

  useEffect(() => {
    // Another invitation link opened in this tab changes only the part after `#`: no page load, so read it here.
    const followLink = () => {
      const token = invitationToken();
      if (token !== null) setState({ kind: 'invitation', token });
    };
    window.addEventListener('hashchange', followLink);
    return () => window.removeEventListener('hashchange', followLink);
  }, []);

  useEffect(() => {
    // The invitation page needs no session: its link's token is the credential.
    if (invitationToken() !== null) return;
    // On every page load the session cookie (HttpOnly, invisible here) is the only memory: ask who we are and get
    // the CSRF token back.
    getSession().then(
      (session) => setState({ kind: 'signed-in', session }),
      (cause: unknown) => {
        const failure = asApiError(cause);
        if (failure.status !== 401) setError(failure);
        setState({ kind: 'signed-out' });
      },
    );
  }, []);

  const doSignOut = async () => {
    setError(null);
    try {
      await signOut();
      setState({ kind: 'signed-out', notice: 'You are signed out.' });
    } catch (cause) {
      report(cause);
    }
  };

  return (
    <>
      <header className="top-bar">
        <span className="brand">Compliance console</span>
        {state.kind === 'signed-in' && (
          <div className="who">
            <span>
              {state.session.user.name}
              {/* A user without a name is shown by email already. */}
              {state.session.user.name !== state.session.user.email && <span className="muted"> ({state.session.user.email})</span>} ·{' '}
              {state.session.organization.name}
            </span>
            <button type="button" onClick={doSignOut}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <div className="banner-slot">
        <ErrorBanner error={error} onDismiss={() => setError(null)} />
      </div>
      {state.kind === 'loading' && (
        <main aria-busy="true">
          <p className="muted">Loading…</p>
        </main>
      )}
      {state.kind === 'signed-out' && (
        <SignIn
          notice={state.notice}
          onError={report}
          onSignedIn={(session) => {
            setError(null);
            setState({ kind: 'signed-in', session });
          }}
        />
      )}
      {state.kind === 'invitation' && (
        <AcceptInvitation
          key={state.token}
          token={state.token}
          onAccepted={(session) => {
            // The token leaves the address bar and the history entry: the link is used up, and the console is home.
            window.history.replaceState(null, '', CONSOLE_HOME);
            setError(null);
            setState({ kind: 'signed-in', session });
          }}
        />
      )}
      {state.kind === 'signed-in' && <ApiClientsPage access={state.session.access} report={report} clearError={() => setError(null)} />}
    </>
  );
}
