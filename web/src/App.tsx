/**
 * The app shell: takes a `#token=` or `#invite=` from the address bar, keeps the token in
 * localStorage, verifies it, and routes the signed-in pages under a top bar.
 */
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, createApi } from './api/client';
import { SessionContext, useSession, type Me, type Session } from './api/context';
import type { StructureSummary } from './api/types';
import { AcceptInvite } from './auth/AcceptInvite';
import { clearToken, parseFragment, replaceFragment, storedToken, storeToken, watchStoredToken } from './auth/session';
import { SignIn } from './auth/SignIn';
import { SwitchAccount, isOtherToken } from './auth/SwitchAccount';
import { CanvasPage } from './canvas/CanvasPage';
import { LeaveGuardContext, parseRoute, useHash } from './router';
import { TopBar } from './TopBar';
import { useTitle } from './ui/hooks';
import { ErrorNote, Skeleton } from './ui/Notice';
import { ToastProvider } from './ui/Toasts';
import { StructuresPage } from './structures/StructuresPage';

/** Pages past the canvas load on first visit (each its own chunk). */
const SkillsPage = lazy(() => import('./skills/SkillsPage').then((module) => ({ default: module.SkillsPage })));
const AccessPage = lazy(() => import('./access/AccessPage').then((module) => ({ default: module.AccessPage })));
const WebhooksPage = lazy(() => import('./webhooks/WebhooksPage').then((module) => ({ default: module.WebhooksPage })));
const LogPage = lazy(() => import('./log/LogPage').then((module) => ({ default: module.LogPage })));

type AuthState =
  | { status: 'signed-out'; reason?: string }
  | { status: 'checking'; token: string }
  /** The server did not answer the check: tried again by itself (and at once when back online). */
  | { status: 'unreachable'; token: string }
  | { status: 'signed-in'; token: string; structures: StructureSummary[]; me: Me };

/** The web UI. */
export function App() {
  const { hash, guard } = useHash();
  const fragment = parseFragment(hash);
  const [invite, setInvite] = useState<string | null>(() => (fragment.kind === 'invite' ? fragment.token : null));
  /** A `#token=` link of another token while this browser is signed in: asked about before anything changes. */
  const [switchTo, setSwitchTo] = useState<string | null>(() => (fragment.kind === 'token' && isOtherToken(fragment.token) ? fragment.token : null));
  const [auth, setAuth] = useState<AuthState>(() => {
    const token = fragment.kind === 'token' && !isOtherToken(fragment.token) ? fragment.token : storedToken();
    return token ? { status: 'checking', token } : { status: 'signed-out' };
  });

  // A secret in the fragment is taken once and removed from the address bar (and history).
  useEffect(() => {
    if (fragment.kind === 'token') {
      if (isOtherToken(fragment.token)) {
        setSwitchTo(fragment.token);
      } else {
        storeToken(fragment.token);
        setAuth({ status: 'checking', token: fragment.token });
      }
      replaceFragment('/');
    } else if (fragment.kind === 'invite') {
      setInvite(fragment.token);
      replaceFragment('/');
    }
  }, [fragment.kind, fragment.kind === 'route' ? '' : fragment.token]);

  const signOut = useCallback((reason?: string) => {
    clearToken();
    setAuth(reason ? { status: 'signed-out', reason } : { status: 'signed-out' });
  }, []);

  // Another tab replaced the token, signed in or signed out: this one follows (the token
  // is checked again, and open chats resume their running turns with it).
  useEffect(
    () =>
      watchStoredToken((next) =>
        setAuth((current) => {
          if (next === null) return current.status === 'signed-out' ? current : { status: 'signed-out' };
          if (current.status !== 'signed-out' && current.token === next) return current;
          return { status: 'checking', token: next };
        }),
      ),
    [],
  );

  const token = auth.status === 'signed-out' ? '' : auth.token;
  const api = useMemo(
    () =>
      createApi(token, () => {
        // Refused because another tab has replaced it: carry on with the new one.
        const stored = storedToken();
        if (stored !== null && stored !== token) setAuth({ status: 'checking', token: stored });
        else signOut('The token was rejected (unknown or revoked). Sign in again.');
      }),
    [token, signOut],
  );

  // Verify the token by listing the structures (a person route: node keys get 403).
  useEffect(() => {
    if (auth.status !== 'checking') return;
    let live = true;
    // One request first (its failure says why the token is refused), then who it is.
    api.get<{ structures: StructureSummary[] }>('/api/org/structures').then(async ({ structures }) => ({ structures, me: await api.get<Me>('/api/org/whoami') })).then(
      ({ structures, me }) => {
        if (!live) return;
        storeToken(auth.token);
        setAuth({ status: 'signed-in', token: auth.token, structures, me });
      },
      (error: unknown) => {
        if (!live) return;
        if (error instanceof TypeError) {
          // The server could not be reached: the token is kept and checked again.
          setAuth({ status: 'unreachable', token: auth.token });
          return;
        }
        const previous = storedToken();
        if (previous !== null && previous !== auth.token) {
          // A new token (a link, an invite) was refused: this browser stays signed in as it was.
          setAuth({ status: 'checking', token: previous });
          return;
        }
        clearToken();
        const reason =
          error instanceof ApiError && error.status === 403
            ? 'That token is not a user token (MCP node keys cannot sign in).'
            : error instanceof ApiError && error.status === 401
              ? 'That token is unknown or revoked.'
              : `Could not sign in: ${error instanceof Error ? error.message : String(error)}`;
        setAuth({ status: 'signed-out', reason });
      },
    );
    return () => {
      live = false;
    };
  }, [auth, api]);

  const refreshStructures = useCallback(async () => {
    const { structures } = await api.get<{ structures: StructureSummary[] }>('/api/org/structures');
    setAuth((current) => (current.status === 'signed-in' ? { ...current, structures } : current));
  }, [api]);

  const adoptToken = useCallback((next: string) => {
    storeToken(next);
    setAuth((current) => (current.status === 'signed-in' ? { ...current, token: next } : current));
  }, []);

  if (switchTo) {
    return (
      <SwitchAccount
        token={switchTo}
        current={auth.status === 'signed-in' ? (auth.me.user?.email ?? 'the administrator') : undefined}
        onSwitch={() => {
          setSwitchTo(null);
          // Checked first; stored only once the server knows it (a refused link keeps nothing of it).
          setAuth({ status: 'checking', token: switchTo });
        }}
        onStay={() => setSwitchTo(null)}
      />
    );
  }
  if (invite) {
    return (
      <AcceptInvite
        token={invite}
        signedInAs={auth.status === 'signed-in' ? auth.me.user?.email : undefined}
        onDone={({ acceptance, token: next }) => {
          setInvite(null);
          if (next) setAuth({ status: 'checking', token: next });
          else if (auth.status !== 'signed-out') {
            // Same user, one more structure: list the structures again.
            setAuth({ status: 'checking', token: auth.token });
          }
          replaceFragment(`/w/${acceptance.structure_id}`);
        }}
        onCancel={() => setInvite(null)}
      />
    );
  }
  if (auth.status === 'signed-out') {
    return (
      <SignIn
        reason={auth.reason}
        onToken={(value) => {
          setAuth({ status: 'checking', token: value });
        }}
      />
    );
  }
  if (auth.status === 'checking') {
    return (
      <main className="center-page">
        <Skeleton lines={2} label="Signing in" />
      </main>
    );
  }
  if (auth.status === 'unreachable') {
    return <Unreachable onRetry={() => setAuth({ status: 'checking', token: auth.token })} />;
  }
  const session: Session = { api, me: auth.me, structures: auth.structures, refreshStructures, adoptToken, signOut: () => signOut() };
  return (
    <SessionContext.Provider value={session}>
      <LeaveGuardContext.Provider value={guard}>
        <ToastProvider>
          <Routed path={fragment.kind === 'route' ? fragment.path : '/'} />
        </ToastProvider>
      </LeaveGuardContext.Provider>
    </SessionContext.Provider>
  );
}

/** The server did not answer the sign-in check: says so, and checks again by itself. */
function Unreachable({ onRetry }: { onRetry: () => void }) {
  useTitle('Server not reachable');
  useEffect(() => {
    const timer = window.setTimeout(onRetry, 3_000);
    window.addEventListener('online', onRetry);
    return () => {
      window.clearTimeout(timer);
      window.removeEventListener('online', onRetry);
    };
  }, [onRetry]);
  return (
    <main className="center-page">
      <div className="card signin">
        <h1>The server could not be reached</h1>
        <p>You are still signed in. This page tries again by itself.</p>
        <button type="button" className="btn btn-primary" onClick={onRetry}>
          Try again now
        </button>
      </div>
    </main>
  );
}

/** An address of a workspace this user cannot see: it does not exist, was deleted, or they are no member. */
function WorkspaceNotFound() {
  useTitle('Workspace not found');
  return (
    <div className="page page-narrow">
      <h1>Workspace not found</h1>
      <p>There is no workspace at this address that you can open. It may have been deleted, or you are not (or no longer) a member of it.</p>
      <p>
        <a href="#/">Back to your workspaces</a>
      </p>
    </div>
  );
}

function NotFound({ path }: { path: string }) {
  useTitle('Page not found');
  return (
    <div className="page">
      <h1>Page not found</h1>
      <ErrorNote error={new Error(`There is no page at ${path}.`)} />
      <a href="#/">Back to the workspaces</a>
    </div>
  );
}

function Routed({ path }: { path: string }) {
  const route = parseRoute(path);
  const structureId = 'structureId' in route ? route.structureId : undefined;
  const { structures, refreshStructures } = useSession();
  const known = structureId === undefined || structures.some((structure) => structure.id === structureId);
  /** The structure id the list was read again for, and found missing from. */
  const [missing, setMissing] = useState<string | null>(null);
  // A structure created or shared since sign-in (CLI, API, another tab): list them again for its name and the caller's role.
  useEffect(() => {
    if (known || structureId === undefined) return;
    let live = true;
    refreshStructures().then(
      () => live && setMissing(structureId),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [known, structureId, refreshStructures]);
  if (!known && missing === structureId) {
    return (
      <div className="app">
        <TopBar route={{ page: 'home' }} />
        <main className="main" id="main" tabIndex={-1}>
          <WorkspaceNotFound />
        </main>
      </div>
    );
  }
  return (
    <div className="app">
      <TopBar route={route} />
      <main className="main" id="main" tabIndex={-1}>
        <Suspense
          fallback={
            <div className="page">
              <Skeleton lines={6} label="Loading the page" />
            </div>
          }
        >
          {route.page === 'home' ? <StructuresPage /> : null}
          {route.page === 'canvas' ? <CanvasPage key={route.structureId} structureId={route.structureId} roleId={route.roleId} runId={route.runId} /> : null}
          {route.page === 'skills' ? <SkillsPage key={route.structureId} structureId={route.structureId} view={route.view} /> : null}
          {route.page === 'access' ? <AccessPage key={structureId} structureId={route.structureId} /> : null}
          {route.page === 'webhooks' ? <WebhooksPage key={structureId} structureId={route.structureId} /> : null}
          {route.page === 'log' ? <LogPage key={structureId} structureId={route.structureId} /> : null}
          {route.page === 'not-found' ? <NotFound path={route.path} /> : null}
        </Suspense>
      </main>
    </div>
  );
}
