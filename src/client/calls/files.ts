/**
 * Calls that move files as bytes: skills as Agent Skills zips (export and import) and
 * the artifacts on a node's shelf.
 */
import { callOn, enc, nodePath, transportOf, type ClientBase } from '../base.js';
import { send, type RequestOptions } from '../http.js';
import { networkError } from '../problem.js';
import type { ArtifactInfo, ImportReport } from '../types.js';

/** The body of a binary answer; a broken connection is a network error unless the caller aborted. */
async function bytesOf(client: ClientBase, response: Response, request?: RequestOptions): Promise<Uint8Array> {
  try {
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    if (request?.signal?.aborted) throw error;
    throw networkError(client.url, error);
  }
}

export const fileCalls = {
  /** A skill as an Agent Skills zip (`<slug>/SKILL.md` and its files). */
  async exportSkill(slug: string, structureId?: string, request?: RequestOptions): Promise<Uint8Array> {
    const response = await send(transportOf(this), `/api/org/knowledge/skills/${enc(slug)}/export`, {
      query: { structure_id: structureId },
      headers: { accept: 'application/zip' },
      ...(request?.signal ? { signal: request.signal } : {}),
    });
    return bytesOf(this, response, request);
  },

  /** Imports the Agent Skills folders of a zip: a report only unless `dryRun` is false. */
  importSkills(zip: Uint8Array, options: { structure_id: string; dryRun?: boolean }, request?: RequestOptions): Promise<ImportReport> {
    return callOn(
      this,
      '/api/org/knowledge/import',
      { method: 'POST', query: { structure_id: options.structure_id, dry_run: options.dryRun === false ? 'false' : 'true' }, raw: { data: zip, contentType: 'application/zip' } },
      request,
    );
  },

  /** Artifacts on a node's shelf. */
  artifacts(structureId: string, roleId: string, request?: RequestOptions): Promise<{ artifacts: ArtifactInfo[] }> {
    return callOn(this, `${nodePath(structureId, roleId)}/artifacts`, {}, request);
  },

  /** Downloads one artifact (as bytes, with its content type). */
  async downloadArtifact(structureId: string, roleId: string, name: string, request?: RequestOptions): Promise<{ contentType: string; data: Uint8Array }> {
    const response = await send(transportOf(this), `${nodePath(structureId, roleId)}/artifacts/${enc(name)}`, {
      headers: { accept: '*/*' },
      ...(request?.signal ? { signal: request.signal } : {}),
    });
    const data = await bytesOf(this, response, request);
    return { contentType: response.headers.get('content-type') ?? 'application/octet-stream', data };
  },
} satisfies ThisType<ClientBase>;

/** The zip and artifact calls of `OrgClient`. */
export type FileCalls = typeof fileCalls;
