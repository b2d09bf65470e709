/** Small shared helpers of the domain: clock, ids, identifier shapes. */
export * from './clock.js';
export * from './patterns.js';
export * from './log.js';
