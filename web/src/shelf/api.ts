/** Artifact shelf calls of one node: list, download, and the bytes for a preview. */
import { nodePath, type Api } from '../api/client';
import type { Artifact } from './kinds';

/** Shelf calls bound to a node. */
export function shelfApi(api: Api, structureId: string, roleId: string) {
  const base = `${nodePath(structureId, roleId)}/artifacts`;
  const file = (name: string) => `${base}/${encodeURIComponent(name)}`;
  return {
    list: (signal?: AbortSignal) => api.get<{ artifacts: Artifact[] }>(base, signal ? { signal } : {}).then((body) => body.artifacts),
    download: (name: string) => api.download(file(name), name),
    /** The file's bytes, for a preview. */
    blob: async (name: string, signal?: AbortSignal) => (await api.raw('GET', file(name), { headers: { accept: '*/*' }, ...(signal ? { signal } : {}) })).blob(),
  };
}

/** The shelf calls' type. */
export type ShelfApi = ReturnType<typeof shelfApi>;
