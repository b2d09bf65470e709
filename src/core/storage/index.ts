/** Durable state on disk: atomic JSON documents, append-only JSON Lines, per-file locks, no links followed. */
export * from './atomic.js';
export * from './dir-sync.js';
export * from './group-file.js';
export * from './json-file.js';
export * from './jsonl.js';
export * from './modes.js';
export * from './mutex.js';
export * from './home-lock.js';
export * from './safe-fs.js';
export * from './temps.js';
