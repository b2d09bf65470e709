/**
 * Finding runs by a prefix of their id in a home's `.org/runs/<first two characters>/`:
 * one folder is listed (a prefix has at least two characters), its file names compared,
 * and only the matching runs' first frames read for their location.
 */
import { join } from 'node:path';
import { readdirSafe } from '../../storage/index.js';
import { inRunScope, RUN_PREFIX_MIN, type RunLocation, type RunSearchScope } from '../store.js';
import { readHeader, runFiles } from './run-files.js';

/** A run file's name: `<run_id>.sse`, or an earlier version's `<run_id>.jsonl`. */
const RUN_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(?:sse|jsonl)$/;

/** The runs under `runsDir` whose id starts with `prefix`, within `scope`, by id, at most `limit`. */
export async function findRunFiles(runsDir: string, prefix: string, scope: RunSearchScope, limit: number): Promise<RunLocation[]> {
  if (prefix.length < RUN_PREFIX_MIN || !/^[0-9a-f-]+$/.test(prefix)) return [];
  let entries;
  try {
    entries = await readdirSafe(join(runsDir, prefix.slice(0, 2)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const ids = new Set<string>();
  for (const entry of entries) {
    const id = entry.isFile() ? RUN_FILE.exec(entry.name)?.[1] : undefined;
    if (id?.startsWith(prefix)) ids.add(id);
  }
  const found: RunLocation[] = [];
  for (const id of [...ids].sort()) {
    const where = await readHeader(runFiles(runsDir, id)!).catch((error: unknown) => {
      // A damaged first frame (written by hand) is no run to offer; anything else is a failure.
      if (error instanceof SyntaxError) return undefined;
      throw error;
    });
    if (where && where.runId === id && inRunScope(where, scope)) found.push(where);
    if (found.length >= limit) break;
  }
  return found;
}
