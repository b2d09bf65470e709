/**
 * The egress gate (API.md §10 "Outbound addresses"): the policy of which addresses org
 * may call for its users (`--allow-egress`), the classification of addresses it rests on,
 * and the one undici dispatcher every outbound call for a user goes through.
 */
export * from './addresses.js';
export * from './gate.js';
export * from './policy.js';
