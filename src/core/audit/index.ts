/** The audit log: who changed what, when and from where; append-only, readable by owners and the administrator. */
export * from './log.js';
export * from './store.js';
