/**
 * The invite page (`#invite=<token>`): first what the invite offers (read with
 * POST /api/org/invites/preview: the workspace, the role, the address, who sent it), then
 * the acceptance. A person new to this server gets a token, shown once like every token,
 * with which this browser then signs in (and the CLI or another device later). A person
 * who already has a user signs in with their own token: the page asks for it, or opens
 * the workspace at once when this browser is already signed in as them. An invite that
 * cannot be used (unknown, used, expired, revoked, or its workspace deleted) says why and
 * offers no acceptance.
 */
import { useEffect, useState } from 'react';
import { ApiError, createApi } from '../api/client';
import type { Me } from '../api/context';
import type { Acceptance } from '../api/types';
import { formatTime } from '../ui/format';
import { useTitle } from '../ui/hooks';
import { explain } from '../ui/explain';
import { ErrorNote, InfoNote, Skeleton } from '../ui/Notice';
import { SecretOnce } from '../ui/SecretOnce';

/** What an invite offers (POST /api/org/invites/preview). */
export interface InvitePreview {
  structure_id: string;
  structure_name: string;
  role: string;
  email: string;
  invited_by: string;
  expires_at: string;
  existing_user: boolean;
}

/** How the page ends: signed in with `token` (a new user's, or one typed here), or as the browser already is. */
export type InviteOutcome = { acceptance: Acceptance; token?: string };

/** Props of {@link AcceptInvite}. */
export interface AcceptInviteProps {
  token: string;
  /** The e-mail of the user this browser is signed in as, if any. */
  signedInAs: string | undefined;
  onDone: (outcome: InviteOutcome) => void;
  onCancel: () => void;
}

/** Reads, then accepts, an invite. */
export function AcceptInvite({ token, signedInAs, onDone, onCancel }: AcceptInviteProps) {
  useTitle('Join a workspace');
  const [preview, setPreview] = useState<InvitePreview | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [accepted, setAccepted] = useState<Acceptance | null>(null);

  useEffect(() => {
    let live = true;
    createApi('')
      .post<InvitePreview>('/api/org/invites/preview', { token })
      .then(
        (found) => live && setPreview(found),
        (failure: unknown) => live && setError(failure),
      );
    return () => {
      live = false;
    };
  }, [token]);

  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      setAccepted(await createApi('').post<Acceptance>('/api/org/invites/accept', { token }));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="center-page">
      <div className="card signin invite">
        <h1 className="brand-title">
          <span className="brand-mark" aria-hidden="true" /> Join a workspace
        </h1>
        {accepted ? (
          <Accepted acceptance={accepted} preview={preview} signedInAs={signedInAs} onDone={onDone} />
        ) : (
          <>
            {preview ? (
              <>
                <p>
                  <strong>{preview.invited_by}</strong> invited <strong>{preview.email}</strong> to the workspace <strong>{preview.structure_name}</strong> as{' '}
                  <strong>{preview.role}</strong>.
                </p>
                <p className="hint">{roleMeaning(preview.role)} The invite can be used once, until {formatTime(preview.expires_at)}.</p>
                {preview.existing_user ? (
                  <InfoNote>{preview.email} already has a user here: accepting adds this workspace to it, and you sign in with that user’s own token.</InfoNote>
                ) : (
                  <InfoNote>Accepting creates a user for {preview.email} and shows its sign-in token once: keep it to sign in again later or elsewhere.</InfoNote>
                )}
                {signedInAs && signedInAs.toLowerCase() !== preview.email.toLowerCase() ? (
                  <InfoNote tone="warning">
                    This browser is signed in as {signedInAs}. The invite is for {preview.email}: accepting gives {preview.email} access, not {signedInAs}.
                  </InfoNote>
                ) : null}
              </>
            ) : error ? null : (
              <Skeleton lines={2} label="Reading the invite" />
            )}
            {refused(error) ? <InviteRefused error={error} /> : <ErrorNote error={error} />}
            <div className="row gap">
              {refused(error) ? null : (
                <button type="button" className="btn btn-primary" disabled={busy || !preview} autoFocus onClick={() => void accept()}>
                  {busy ? 'Accepting…' : 'Accept the invite'}
                </button>
              )}
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

/** True when the server says the invite cannot be used at all (unknown, used, expired, revoked, its workspace deleted). */
function refused(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 410);
}

/** Why an invite cannot be used, in the server's words, and what to do instead: there is nothing to retry. */
function InviteRefused({ error }: { error: unknown }) {
  const { detail } = explain(error);
  return (
    <div className="notice notice-error" role="alert">
      <div className="notice-body">
        <strong>This invite cannot be used.</strong>
        {detail ? <> {detail}</> : null}
        <div className="notice-hint">Ask the person who invited you, or an owner of the workspace, for a new invite.</div>
      </div>
    </div>
  );
}

/** What each role may do, in a sentence. */
function roleMeaning(role: string): string {
  if (role === 'viewer') return 'Viewers read the workspace: its nodes, chats, skills and log.';
  if (role === 'operator') return 'Operators chat with the nodes, change nodes and write skills.';
  return 'Owners do everything, including keys, members and webhooks.';
}

/** After accepting: the new token once, or the way to sign in with one's own. */
function Accepted({
  acceptance,
  preview,
  signedInAs,
  onDone,
}: {
  acceptance: Acceptance;
  preview: InvitePreview | null;
  signedInAs: string | undefined;
  onDone: (outcome: InviteOutcome) => void;
}) {
  const [own, setOwn] = useState('');
  const [ownError, setOwnError] = useState<unknown>(null);
  const name = preview?.structure_name ?? 'the workspace';
  /** Checks the typed token before signing in with it: it must be the invited user's. */
  const signIn = async () => {
    setOwnError(null);
    const value = own.trim();
    try {
      const me = await createApi(value).get<Me>('/api/org/whoami');
      if (me.user?.email.toLowerCase() !== acceptance.user.email.toLowerCase()) {
        throw new Error(`That token is ${me.user ? `${me.user.email}’s` : 'not a user’s'}, not ${acceptance.user.email}’s.`);
      }
      onDone({ acceptance, token: value });
    } catch (failure) {
      setOwnError(failure instanceof ApiError && failure.status === 401 ? new Error('That token is unknown or revoked.') : failure);
    }
  };
  const sameUser = signedInAs !== undefined && signedInAs.toLowerCase() === acceptance.user.email.toLowerCase();
  return (
    <>
      <InfoNote tone="success">
        {acceptance.user.email} joined {name} as <strong>{acceptance.role}</strong>.
      </InfoNote>
      {acceptance.token ? (
        <>
          <SecretOnce secret={acceptance.token} label="Your sign-in token" noun="token" onDone={() => onDone({ acceptance, token: acceptance.token! })}>
            <strong>Copy this token now.</strong> It is shown only once, and it is how you sign in again: after signing out, in another browser, or in the CLI with{' '}
            <code>org login --token …</code>.
          </SecretOnce>
          <button type="button" className="btn btn-primary btn-block" onClick={() => onDone({ acceptance, token: acceptance.token! })}>
            I have kept it: open {name}
          </button>
        </>
      ) : sameUser ? (
        <button type="button" className="btn btn-primary btn-block" autoFocus onClick={() => onDone({ acceptance })}>
          Open {name}
        </button>
      ) : (
        <form
          className="form"
          onSubmit={(event) => {
            event.preventDefault();
            if (own.trim()) void signIn();
          }}
        >
          <p>{acceptance.user.email} already has a user: sign in with its token to open {name}.</p>
          <label className="field">
            <span>Token of {acceptance.user.email}</span>
            <input type="password" name="token" autoComplete="off" spellCheck={false} placeholder="org_u_…" value={own} autoFocus onChange={(event) => setOwn(event.target.value)} />
          </label>
          <ErrorNote error={ownError} />
          <p className="hint">
            Lost it? The CLI keeps it in <code>~/.config/org/credentials.json</code>; an administrator can give you a new one.
          </p>
          <button type="submit" className="btn btn-primary btn-block" disabled={!own.trim()}>
            Sign in and open {name}
          </button>
        </form>
      )}
    </>
  );
}
