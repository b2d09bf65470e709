/** The sign-in page: a user token pasted once, kept in this browser until sign-out. */
import { useState } from 'react';
import { useTitle } from '../ui/hooks';
import { InfoNote } from '../ui/Notice';

/** Asks for a token. */
export function SignIn({ reason, onToken }: { reason?: string | undefined; onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  useTitle('Sign in');
  return (
    <main className="center-page">
      <form
        className="card signin"
        onSubmit={(event) => {
          event.preventDefault();
          const value = token.trim();
          if (value) onToken(value);
        }}
      >
        <h1 className="brand-title">
          <span className="brand-mark" aria-hidden="true" /> org
        </h1>
        <p className="muted">Agent workspaces: structures, skills and live chat.</p>
        {reason ? <InfoNote tone="warning">{reason}</InfoNote> : null}
        <label className="field">
          <span>Your token</span>
          <input
            type="password"
            name="token"
            autoComplete="off"
            spellCheck={false}
            placeholder="org_u_…"
            value={token}
            autoFocus
            onChange={(event) => setToken(event.target.value)}
          />
        </label>
        <button type="submit" className="btn btn-primary btn-block" disabled={!token.trim()}>
          Sign in
        </button>
        <p className="hint">
          <code>org serve</code> prints a sign-in link with your token on its first start; the CLI keeps the token in{' '}
          <code>~/.config/org/credentials.json</code>. The token stays in this browser until you sign out.
        </p>
      </form>
    </main>
  );
}
