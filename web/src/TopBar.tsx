/**
 * The top bar: brand, structure switcher, the structure's sections, a new token, sign-out. On narrow
 * screens the switcher, sections and account controls fold into a menu opened by a
 * button (the same markup; CSS decides), which closes on navigation and on Escape.
 */
import { useEffect, useState } from 'react';
import { useSession } from './api/context';
import { ReplaceToken } from './auth/ReplaceToken';
import { href, navigate, type Route } from './router';

const SECTIONS = [
  { page: 'canvas', label: 'Canvas', link: href.canvas, owner: false },
  { page: 'skills', label: 'Skills', link: (id: string) => href.skills(id), owner: false },
  { page: 'access', label: 'Keys & members', link: href.access, owner: true },
  { page: 'webhooks', label: 'Webhooks', link: href.webhooks, owner: true },
  { page: 'log', label: 'Log', link: href.log, owner: false },
] as const;

/** The top bar of every signed-in page. */
export function TopBar({ route }: { route: Route }) {
  const { me, structures, signOut } = useSession();
  const who = me.kind === 'admin' ? 'administrator' : (me.user?.email ?? '');
  const structureId = 'structureId' in route ? route.structureId : undefined;
  const current = structures.find((structure) => structure.id === structureId);
  const [open, setOpen] = useState(false);

  // A new page closes the menu.
  useEffect(() => setOpen(false), [route]);

  return (
    <header className="topbar">
      <a
        className="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      {route.page === 'canvas' && route.roleId ? (
        <a
          className="skip-link"
          href="#chat-input"
          onClick={(event) => {
            event.preventDefault();
            document.getElementById('chat-input')?.focus();
          }}
        >
          Skip to the message box (Alt+M)
        </a>
      ) : null}
      <a className="brand" href={href.home()}>
        <span className="brand-mark" aria-hidden="true" /> org
      </a>
      {current ? <span className="topbar-current">{current.name}</span> : null}
      <button
        type="button"
        className="btn btn-small menu-toggle"
        aria-expanded={open}
        aria-controls="app-menu"
        onClick={() => setOpen((value) => !value)}
      >
        <span className="menu-icon" aria-hidden="true" /> Menu
      </button>
      <div
        id="app-menu"
        className={open ? 'topbar-menu open' : 'topbar-menu'}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && open) {
            setOpen(false);
            document.querySelector<HTMLButtonElement>('.menu-toggle')?.focus();
          }
        }}
      >
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
              {SECTIONS.filter((section) => !section.owner || current?.role === 'owner').map((section) => (
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
          {me.kind === 'user' ? <ReplaceToken /> : null}
          <button type="button" className="btn btn-small" onClick={signOut}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
