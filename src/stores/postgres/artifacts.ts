/**
 * The PostgreSQL artifact shelf: table `artifacts`, the bytes in a `bytea` column (the
 * size limits are the chat's: 10 attachments of at most 10 MiB). A runtime reads staged
 * attachments from files, so every write is also copied to this instance's cache folder
 * (`dir`); downloads are served from the table, on any instance.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { newestFirst, safeName, type ArtifactInfo, type ArtifactShelf } from '../../core/chat/artifacts.js';
import { notFound } from '../../core/errors.js';
import { writeAtomic } from '../../core/storage/index.js';
import { isoNow, mediaTypeOr, type Clock, systemClock } from '../../core/util/index.js';
import type { Db } from './db.js';

export interface PgShelfOptions {
  /** This instance's folder for local copies (`<home>/.org/cache/artifacts`). */
  cacheDir: string;
  clock?: Clock;
}

interface ArtifactRow {
  name: string;
  size: string;
  content_type: string;
  created_at: string;
  info: Record<string, unknown>;
}

function toInfo(row: ArtifactRow): ArtifactInfo {
  return { ...row.info, name: row.name, size: Number(row.size), content_type: row.content_type, created_at: row.created_at };
}

/** Opens the shelf of a node. */
export function createPgShelves(db: Db, options: PgShelfOptions): (structureId: string, nodeId: string) => ArtifactShelf {
  const clock = options.clock ?? systemClock;
  return (structureId, nodeId) => {
    const dir = join(options.cacheDir, structureId, nodeId);
    return {
      dir,
      // Nothing is listed in memory: the listing is read from the table on every call.
      bytes: 256 + 2 * dir.length,
      async write(name, data, contentType, origin) {
        const safe = safeName(name);
        const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
        // Members of the metadata beyond the four columns (the run and source that made it) are kept in `info`.
        const extra: Record<string, unknown> = origin ? { run_id: origin.runId, source: origin.source } : {};
        const info: ArtifactInfo = { name: safe, size: buffer.length, content_type: mediaTypeOr(contentType), created_at: isoNow(clock) };
        await db.query(
          `INSERT INTO artifacts (structure_id, node_id, name, size, content_type, created_at, info, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (structure_id, node_id, name) DO UPDATE SET size = EXCLUDED.size, content_type = EXCLUDED.content_type,
             created_at = EXCLUDED.created_at, info = EXCLUDED.info, data = EXCLUDED.data`,
          [structureId, nodeId, safe, buffer.length, info.content_type, info.created_at, JSON.stringify(extra), buffer],
        );
        await mkdir(dir, { recursive: true });
        await writeAtomic(join(dir, safe), buffer);
        return { ...extra, ...info };
      },
      async list() {
        const { rows } = await db.query<ArtifactRow>('SELECT name, size, content_type, created_at, info FROM artifacts WHERE structure_id = $1 AND node_id = $2', [structureId, nodeId]);
        return rows.map(toInfo).sort(newestFirst);
      },
      async open(name) {
        const { rows } =
          safeName(name) === name
            ? await db.query<ArtifactRow & { data: Buffer }>('SELECT name, size, content_type, created_at, info, data FROM artifacts WHERE structure_id = $1 AND node_id = $2 AND name = $3', [
                structureId,
                nodeId,
                name,
              ])
            : { rows: [] };
        const row = rows[0];
        if (!row) throw notFound(`artifact ${JSON.stringify(name.slice(0, 200))} not found`);
        return { info: toInfo(row), stream: Readable.from([row.data]) };
      },
    };
  };
}
