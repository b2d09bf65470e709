/**
 * Worker thread entry of the parallel library load (see `parse-pool.ts`): parses the
 * slice of skill files of each request and answers with it, its arrays moved.
 */
import { parentPort } from 'node:worker_threads';
import { parseSlice } from './parsed-file.js';
import { batchTransferList } from './search/batch.js';

/** A slice of files to parse. */
export interface ParseRequest {
  id: number;
  root: string;
  /** Skill keys (see `skill-key.ts`). */
  keys: string[];
}

parentPort?.on('message', (request: ParseRequest) => {
  const slice = parseSlice(request.root, request.keys);
  parentPort?.postMessage({ id: request.id, slice }, batchTransferList(slice.batch));
});
