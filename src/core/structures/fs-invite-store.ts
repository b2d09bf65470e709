/** The filesystem `InviteStore`: every invite in `.org/invites.json`, held in memory. */
import { JsonFile } from '../storage/index.js';
import type { InviteRecord, InviteStore } from './invite-store.js';

interface InvitesDoc {
  version: 1;
  invites: InviteRecord[];
}

/** Loads `file` (an empty list when absent) and returns the store. */
export async function createFsInviteStore(file: string): Promise<InviteStore> {
  const doc = new JsonFile<InvitesDoc>(file, () => ({ version: 1, invites: [] }));
  await doc.load();
  return {
    async insert(invite) {
      await doc.update((draft) => {
        for (const old of draft.invites) {
          if (old.structure_id === invite.structure_id && old.email === invite.email && old.status === 'pending') old.status = 'replaced';
        }
        draft.invites.push(invite);
      });
    },
    byTokenHash: async (hash) => doc.current.invites.find((invite) => invite.token_hash === hash),
    claim: (id, at) =>
      doc.update((draft) => {
        const stored = draft.invites.find((candidate) => candidate.id === id);
        if (!stored || stored.status !== 'pending') return false;
        stored.status = 'accepted';
        stored.accepted_at = at;
        return true;
      }),
    revoke: (structureId, id) =>
      doc.update((draft) => {
        const stored = draft.invites.find((candidate) => candidate.id === id && candidate.structure_id === structureId && candidate.status === 'pending');
        if (!stored) return undefined;
        stored.status = 'revoked';
        return { ...stored };
      }),
    async release(id) {
      await doc.update((draft) => {
        const stored = draft.invites.find((candidate) => candidate.id === id);
        if (stored) {
          stored.status = 'pending';
          stored.accepted_at = null;
        }
      });
    },
    pendingOf: async (structureId) => doc.current.invites.filter((invite) => invite.structure_id === structureId && invite.status === 'pending').reverse(),
    list: async () => [...doc.current.invites],
  };
}
