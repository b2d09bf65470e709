/**
 * A `#token=` link opened in a browser that is signed in with another token: nothing
 * changes until the person says so. The page names both accounts (the link's is read
 * with its token, which is not stored), and offers to switch or to stay; staying keeps
 * this browser's token, and the link's token is forgotten.
 */
import { useEffect, useState } from 'react';
import { createApi } from '../api/client';
import type { Me } from '../api/context';
import { storedToken } from './session';
import { useTitle } from '../ui/hooks';
import { ErrorNote, Skeleton } from '../ui/Notice';

/** True when this browser keeps a token and `token` is another one (a link would replace it). */
export function isOtherToken(token: string): boolean {
  const stored = storedToken();
  return stored !== null && stored !== token;
}

/** Asks before a link signs this browser in as another account. */
export function SwitchAccount({ token, current, onSwitch, onStay }: { token: string; current: string | undefined; onSwitch: () => void; onStay: () => void }) {
  useTitle('Switch account?');
  const [next, setNext] = useState<Me | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    createApi(token)
      .get<Me>('/api/org/whoami')
      .then(
        (me) => live && setNext(me),
        (failure: unknown) => live && setError(failure),
      );
    return () => {
      live = false;
    };
  }, [token]);
  const who = (me: Me) => (me.kind === 'admin' ? 'the administrator' : me.kind === 'mcp' ? 'an MCP node key (it cannot sign in)' : (me.user?.email ?? 'another user'));
  return (
    <main className="center-page">
      <div className="card signin">
        <h1>Switch account?</h1>
        <p>
          This link signs in {next ? <strong>{who(next)}</strong> : 'another account'}. This browser is signed in{current ? <> as <strong>{current}</strong></> : ''}.
        </p>
        <p className="hint">Switching replaces this browser’s token with the link’s; staying keeps you signed in as you are, and the link’s token is not kept.</p>
        {!next && !error ? <Skeleton lines={1} label="Reading the link" /> : null}
        <ErrorNote error={error} />
        <div className="row gap">
          <button type="button" className="btn" autoFocus onClick={onStay}>
            Stay signed in{current ? ` as ${current}` : ''}
          </button>
          <button type="button" className="btn btn-primary" disabled={!next || next.kind === 'mcp'} onClick={onSwitch}>
            Switch{next ? ` to ${who(next)}` : ''}
          </button>
        </div>
      </div>
    </main>
  );
}
