/** The filesystem `KeyStore`: every key in `.org/keys.json`, held in memory. */
import { JsonFile } from '../storage/index.js';
import type { KeyStore, McpKeyRecord } from './key-store.js';

interface KeysDoc {
  version: 1;
  keys: McpKeyRecord[];
}

/** Loads `file` (an empty list when absent) and returns the store. */
export async function createFsKeyStore(file: string): Promise<KeyStore> {
  const doc = new JsonFile<KeysDoc>(file, () => ({ version: 1, keys: [] }));
  await doc.load();
  let live = new Map<string, McpKeyRecord>();
  const reindex = () => {
    live = new Map(doc.current.keys.filter((key) => !key.revoked_at).map((key) => [key.token_hash, key]));
  };
  reindex();
  return {
    liveByHash: async (hash) => live.get(hash),
    liveOfNode: async (structureId, nodeId) => doc.current.keys.filter((key) => key.structure_id === structureId && key.node_id === nodeId && !key.revoked_at),
    list: async () => [...doc.current.keys],
    async insert(record) {
      await doc.update((draft) => {
        draft.keys.push(record);
      });
      reindex();
    },
    async revoke(structureId, nodeId, keyId, at) {
      const key = doc.current.keys.find((candidate) => candidate.id === keyId && candidate.structure_id === structureId && candidate.node_id === nodeId && !candidate.revoked_at);
      if (!key) return undefined;
      // Stop accepting the key before the write, so no request slips in while it lands.
      live.delete(key.token_hash);
      try {
        return await doc.update((draft) => {
          const stored = draft.keys.find((candidate) => candidate.id === keyId)!;
          stored.revoked_at = at;
          return { ...stored };
        });
      } finally {
        reindex();
      }
    },
    async recordUse(used) {
      if (used.size === 0) return;
      await doc.update((draft) => {
        for (const key of draft.keys) {
          const at = used.get(key.id);
          if (at) key.last_used_at = at;
        }
      });
      reindex();
    },
  };
}
