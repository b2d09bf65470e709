/**
 * undici, loaded on the first outgoing request instead of with the module that sends it:
 * it is the largest package org bundles (about a megabyte of code), and a server that
 * never calls a container, an LLM, a tool or a webhook should not compile it before it
 * listens. The first request waits for the load once; later ones get the same module.
 */
import type * as Undici from 'undici';

let loading: Promise<typeof Undici> | undefined;

/**
 * The undici module (loaded once, on first call). undici is CommonJS: Node's own loader
 * names its exports, while the bundled CLI's chunk hands the whole module over as its
 * default export only; either way the module's exports are returned.
 */
export function loadUndici(): Promise<typeof Undici> {
  loading ??= import('undici').then((module) => (typeof module.request === 'function' ? module : (module as unknown as { default: typeof Undici }).default));
  return loading;
}
