/** The top bar: brand, workspace switcher, the workspace's sections, sign-out. */
import { useSession } from './api/context';
import { href, navigate, type Route } from './router';
import { useLoad } from './ui/useLoad';

interface WhoAmI {
  kind: 'user' | 'admin' | 'mcp';
  user?: { email: string };
}

const SECTIONS = [
  { page: 'canvas', label: 'Canvas', link: href.canvas },
  { page: 'skills', label: 'Skills', link: (id: string) => href.skills(id) },
  { page: 'access', label: 'Keys & members', link: href.access },
  { page: 'log', label: 'Log', link: href.log },
] as const;

/** The top bar of every signed-in page. */
export function TopBar({ route }: { route: Route }) {
  const { api, structures, signOut } = useSession();
  const me = useLoad((signal) => api.get<WhoAmI>('/api/org/whoami', { signal }), [api]);
  const who = me.data?.kind === 'admin' ? 'administrator' : (me.data?.user?.email ?? '');
  const structureId = 'structureId' in route ? route.structureId : undefined;
  const current = structures.find((structure) => structure.id === structureId);
  return (
    <header className="topbar">
      <a className="skip-link" href="#main" onClick={(event) => {
        event.preventDefault();
        document.getElementById('main')?.focus();
      }}>
        Skip to content
      </a>
      <a className="brand" href={href.home()}>
        <span className="brand-mark" aria-hidden="true" /> org
      </a>
      {structureId ? (
        <>
          <label className="switcher">
            <span className="sr-only">Workspace</span>
            <select
              value={structureId}
              onChange={(event) => {
                const section = SECTIONS.find((candidate) => candidate.page === route.page) ?? SECTIONS[0];
                navigate(section.link(event.target.value));
              }}
            >
              {current ? null : <option value={structureId}>{structureId}</option>}
              {structures.map((structure) => (
                <option key={structure.id} value={structure.id}>
                  {structure.name}
                </option>
              ))}
            </select>
          </label>
          {current ? <span className={`role-chip role-${current.role}`}>{current.role}</span> : null}
          <nav className="tabs" aria-label="Workspace sections">
            {SECTIONS.map((section) => (
              <a
                key={section.page}
                href={section.link(structureId)}
                className={route.page === section.page ? 'tab active' : 'tab'}
                aria-current={route.page === section.page ? 'page' : undefined}
              >
                {section.label}
              </a>
            ))}
          </nav>
        </>
      ) : (
        <nav className="tabs" aria-label="Sections">
          <a href={href.home()} className="tab active" aria-current="page">
            Workspaces
          </a>
        </nav>
      )}
      <div className="topbar-end">
        {who ? <span className="who">{who}</span> : null}
        {structureId ? (
          <a className="btn btn-ghost btn-small" href={href.home()}>
            All workspaces
          </a>
        ) : null}
        <button type="button" className="btn btn-small" onClick={signOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}
