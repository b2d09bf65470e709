/** Small shared helpers of the domain: clock, ids, identifier shapes, short text. */
export * from './clock.js';
export * from './patterns.js';
export * from './log.js';
export * from './text.js';
export * from './bounded-cache.js';
