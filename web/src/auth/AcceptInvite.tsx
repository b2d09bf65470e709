/** The invite acceptance page (`#invite=<token>`): POST /api/org/invites/accept. */
import { useState } from 'react';
import { createApi } from '../api/client';
import type { Acceptance } from '../api/types';
import { useTitle } from '../ui/hooks';
import { ErrorNote, InfoNote } from '../ui/Notice';

/** Accepts an invite; a new user's token is handed to `onDone` to sign in with. */
export function AcceptInvite({
  token,
  signedIn,
  onDone,
  onCancel,
}: {
  token: string;
  signedIn: boolean;
  onDone: (acceptance: Acceptance) => void;
  onCancel: () => void;
}) {
  useTitle('Join a workspace');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [accepted, setAccepted] = useState<Acceptance | null>(null);
  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      const acceptance = await createApi('').post<Acceptance>('/api/org/invites/accept', { token });
      setAccepted(acceptance);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="center-page">
      <div className="card signin">
        <h1 className="brand-title">
          <span className="brand-mark" aria-hidden="true" /> Join a workspace
        </h1>
        {accepted ? (
          <>
            <InfoNote tone="success">
              You joined as <strong>{accepted.role}</strong> ({accepted.user.email}).
            </InfoNote>
            {accepted.token ? (
              <p className="hint">A user was created for you; this browser is now signed in with its token.</p>
            ) : signedIn ? null : (
              <p className="hint">You already have a user: sign in with your existing token to open the workspace.</p>
            )}
            <button type="button" className="btn btn-primary btn-block" autoFocus onClick={() => onDone(accepted)}>
              Open the workspace
            </button>
          </>
        ) : (
          <>
            <p>You were invited to an org workspace. Accepting adds you as a member with the role named in the invite.</p>
            <ErrorNote error={error} />
            <div className="row gap">
              <button type="button" className="btn btn-primary" disabled={busy} autoFocus onClick={() => void accept()}>
                {busy ? 'Accepting…' : 'Accept the invite'}
              </button>
              <button type="button" className="btn" onClick={onCancel}>
                Not now
              </button>
            </div>
          </>
        )}
      </div>
    </main>
  );
}
