/**
 * The replay guard of the inbound webhooks on a shared store: an id is taken by inserting
 * it, so that of all the instances exactly one accepts it; ids out of the window are
 * deleted now and then by whichever instance takes one.
 */
import type { ReplayGuard } from '../../core/inbound/replay-guard.js';
import { INBOUND_TOLERANCE_S } from '../../core/inbound/signature.js';
import type { Db } from './db.js';

/** The window an id is kept for: a timestamp is accepted this far before and after the clock. */
const WINDOW_MS = 2 * INBOUND_TOLERANCE_S * 1000;

/** The guard over `db`. */
export function createPgReplayGuard(db: Db, onError: (error: unknown) => void): ReplayGuard {
  let lastSweep = 0;
  return {
    async claim(id, nowMs) {
      if (nowMs - lastSweep > WINDOW_MS / 10) {
        lastSweep = nowMs;
        db.query('DELETE FROM inbound_message_ids WHERE seen_at < $1', [nowMs - WINDOW_MS]).catch(onError);
      }
      // A row left from beyond the window is an id used long ago: taken again.
      const { rowCount } = await db.query(
        `INSERT INTO inbound_message_ids AS i (id, seen_at) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET seen_at = EXCLUDED.seen_at WHERE i.seen_at < $2 - $3`,
        [id, nowMs, WINDOW_MS],
      );
      return rowCount === 1;
    },
  };
}
