/**
 * undici, loaded on the first outgoing request instead of with the module that sends it:
 * it is the largest package org bundles (about a megabyte of code), and a server that
 * never calls a container, an LLM, a tool or a webhook should not compile it before it
 * listens. The first request waits for the load once; later ones get the same module.
 */
import type * as Undici from 'undici';

let loading: Promise<typeof Undici> | undefined;

/** The undici module (loaded once, on first call). */
export function loadUndici(): Promise<typeof Undici> {
  loading ??= import('undici');
  return loading;
}
