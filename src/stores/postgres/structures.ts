/**
 * The PostgreSQL `StructureStore`: each structure is a row of `structures` (a base record
 * and the number of the last change it includes) and its journal is `structure_changes`
 * `(structure_id, seq)`. An append names the change it follows: when another instance
 * appended first, the append is refused as stale and the caller reloads and decides
 * again. Every create and append takes a number from `structure_clock`, so an instance
 * learns which structures changed since it last looked with one indexed query.
 */
import { StaleStructureError, timelineEntry, type StructureStore } from '../../core/structures/structure-store.js';
import { applyChange, nodeIndex, type JournalEntry } from '../../core/structures/changes.js';
import type { StructureRecord } from '../../core/structures/types.js';
import type { Db } from './db.js';
import { wake } from './notify.js';

export interface PgStructureStoreOptions {
  /** Changes past the base after which a new base is written (default 256, and at least the record's node count). */
  compactEvery?: number;
}

interface Row {
  id: string;
  base: StructureRecord;
  base_seq: string;
  seq: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The store over `db`. */
export function createPgStructureStore(db: Db, options: PgStructureStoreOptions = {}): StructureStore {
  const compactEvery = options.compactEvery ?? 256;
  /** The last change included in each structure's stored base, as far as this instance knows. */
  const baseSeq = new Map<string, number>();

  const assemble = (row: Row, changes: JournalEntry[]): { record: StructureRecord; seq: number } => {
    const record = row.base;
    let seq = Number(row.base_seq);
    const byId = nodeIndex(record);
    for (const entry of changes) {
      if (entry.seq <= seq) continue;
      applyChange(record, entry.change, byId);
      seq = entry.seq;
    }
    baseSeq.set(row.id, Number(row.base_seq));
    return { record, seq };
  };

  const read = async (where: string, values: unknown[]) => {
    const { rows } = await db.query<Row>(`SELECT id, base, base_seq, seq FROM structures ${where} ORDER BY created_at, id`, values);
    if (rows.length === 0) return [];
    const { rows: changes } = await db.query<{ structure_id: string; entry: JournalEntry }>(
      `SELECT c.structure_id, c.entry FROM structure_changes c JOIN structures s ON s.id = c.structure_id
       WHERE c.structure_id = ANY($1::uuid[]) AND c.seq > s.base_seq ORDER BY c.structure_id, c.seq`,
      [rows.map((row) => row.id)],
    );
    const byStructure = new Map<string, JournalEntry[]>();
    for (const change of changes) {
      let list = byStructure.get(change.structure_id);
      if (!list) byStructure.set(change.structure_id, (list = []));
      list.push(change.entry);
    }
    return rows.map((row) => assemble(row, byStructure.get(row.id) ?? []));
  };

  return {
    loadAll: () => read('', []),

    async load(id) {
      if (!UUID.test(id)) return undefined;
      return (await read('WHERE id = $1', [id]))[0];
    },

    create: (record) =>
      db.tx(async (client) => {
        await client.query(`INSERT INTO structures (id, base, base_seq, seq, created_at, changed) VALUES ($1, $2, 0, 0, $3, nextval('structure_clock'))`, [
          record.id,
          JSON.stringify(record),
          record.created_at,
        ]);
        baseSeq.set(record.id, 0);
        await wake(client, 'structure', record.id);
      }),

    append: (structureId, entries) =>
      db.tx(async (client) => {
        if (entries.length === 0) return;
        const first = entries[0]!.seq;
        const last = entries.at(-1)!.seq;
        // The row lock orders appends of one structure; a journal that moved on refuses this one.
        const { rowCount } = await client.query(`UPDATE structures SET seq = $3, changed = nextval('structure_clock') WHERE id = $1 AND seq = $2`, [
          structureId,
          first - 1,
          last,
        ]);
        if (rowCount === 0) throw new StaleStructureError(structureId);
        await client.query(
          `INSERT INTO structure_changes (structure_id, seq, node_id, entry)
           SELECT $1, e.seq, e.node_id, e.entry FROM unnest($2::bigint[], $3::uuid[], $4::jsonb[]) AS e(seq, node_id, entry)`,
          [structureId, entries.map((entry) => entry.seq), entries.map((entry) => entry.node_id ?? null), entries.map((entry) => JSON.stringify(entry))],
        );
        await wake(client, 'structure', structureId);
      }),

    async applied(record, seq) {
      const base = baseSeq.get(record.id) ?? 0;
      // At least as many changes as the record has nodes: rewriting a large base then costs
      // a constant share per change, so adding nodes stays linear as a structure grows.
      if (seq - base < Math.max(compactEvery, record.agents.length + record.archive.length)) return;
      await db.query('UPDATE structures SET base = $2, base_seq = $3 WHERE id = $1 AND base_seq < $3 AND seq >= $3', [record.id, JSON.stringify(record), seq]);
      baseSeq.set(record.id, seq);
    },

    async journal(structureId) {
      if (!UUID.test(structureId)) return [];
      const { rows } = await db.query<{ entry: JournalEntry }>('SELECT entry FROM structure_changes WHERE structure_id = $1 ORDER BY seq', [structureId]);
      return rows.map((row) => row.entry);
    },

    restore: (record, seq, entries) =>
      db.tx(async (client) => {
        await client.query(`INSERT INTO structures (id, base, base_seq, seq, created_at, changed) VALUES ($1, $2, $3, $3, $4, nextval('structure_clock'))`, [
          record.id,
          JSON.stringify(record),
          seq,
          record.created_at,
        ]);
        if (entries.length > 0) {
          await client.query(
            `INSERT INTO structure_changes (structure_id, seq, node_id, entry)
             SELECT $1, e.seq, e.node_id, e.entry FROM unnest($2::bigint[], $3::uuid[], $4::jsonb[]) AS e(seq, node_id, entry)`,
            [record.id, entries.map((entry) => entry.seq), entries.map((entry) => entry.node_id ?? null), entries.map((entry) => JSON.stringify(entry))],
          );
        }
        baseSeq.set(record.id, seq);
        await wake(client, 'structure', record.id);
      }),

    async timeline(structureId, nodeId) {
      if (!UUID.test(structureId) || !UUID.test(nodeId)) return [];
      const { rows } = await db.query<{ entry: JournalEntry }>('SELECT entry FROM structure_changes WHERE structure_id = $1 AND node_id = $2 ORDER BY seq', [
        structureId,
        nodeId,
      ]);
      return rows.map((row) => timelineEntry(row.entry));
    },

    async cursor() {
      return Number((await db.query<{ n: string }>(`SELECT coalesce(max(changed), 0) AS n FROM structures`)).rows[0]!.n);
    },

    async changedSince(cursor) {
      const { rows } = await db.query<{ id: string; changed: string }>('SELECT id, changed FROM structures WHERE changed > $1', [cursor]);
      return { ids: rows.map((row) => row.id), cursor: rows.reduce((max, row) => Math.max(max, Number(row.changed)), cursor) };
    },

    close: async () => undefined,
  };
}
