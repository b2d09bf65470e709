/** The signed-in API client and the structures list, shared through React context. */
import { createContext, useContext } from 'react';
import type { Api } from './client';
import type { StructureSummary } from './types';

/** Who is signed in (GET /api/org/whoami). */
export interface Me {
  kind: 'user' | 'admin' | 'mcp';
  user?: { id: string; email: string };
}

/** What every signed-in page can reach. */
export interface Session {
  api: Api;
  /** The signed-in user, or the instance administrator. */
  me: Me;
  /** The structures the token can access (refreshed by `refreshStructures`). */
  structures: StructureSummary[];
  refreshStructures: () => Promise<void>;
  /** Carries on with a new token of the same person (after replacing the old one). */
  adoptToken: (token: string) => void;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

/** The current session; only used below the signed-in shell. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside of the signed-in app');
  return session;
}

/** The caller's role in a structure (undefined while unknown). */
export function useRole(structureId: string) {
  return useSession().structures.find((structure) => structure.id === structureId)?.role;
}
