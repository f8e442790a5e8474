import { useId, useState, type FormEvent } from 'react';
import { signIn, type Session } from './api.js';

export function SignIn({ onSignedIn, onError, notice }: { onSignedIn(session: Session): void; onError(error: unknown): void; notice?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const emailId = useId();
  const passwordId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    try {
      const session = await signIn(email.trim(), password);
      setPassword('');
      onSignedIn(session);
    } catch (error) {
      onError(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <h1>Sign in to the console</h1>
      {notice && (
        <p className="banner banner-info" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit} aria-label="Sign in">
        <label htmlFor={emailId}>Email address</label>
        <input id={emailId} name="email" type="email" autoComplete="username" required maxLength={254} value={email} onChange={(event) => setEmail(event.target.value)} />
        <label htmlFor={passwordId}>Password</label>
        <input id={passwordId} name="password" type="password" autoComplete="current-password" required maxLength={1024} value={password} onChange={(event) => setPassword(event.target.value)} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
