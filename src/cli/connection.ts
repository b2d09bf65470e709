/**
 * Which server and token a command uses: `--url`/`--token` flags, then `ORG_URL`/`ORG_TOKEN`,
 * then the credentials file (`org login` and the first `org serve` write it), then the
 * default local address.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { readCredentials } from '../core/credentials.js';
import { invalid } from '../core/errors.js';
import { OrgClient } from '../client/index.js';

/** The default address of `org serve`. */
export const DEFAULT_URL = 'http://127.0.0.1:4780';

/** Connection flags every client command takes. */
export interface ConnectionFlags {
  url?: string;
  token?: string;
}

/** Where a value came from. */
export type ConnectionSource = 'flag' | 'env' | 'credentials' | 'default' | 'none';

/** The server URL and token a command will use, and where each came from. */
export interface Connection {
  url: string;
  token?: string;
  /** E-mail saved with the login, when known. */
  email?: string;
  urlSource: ConnectionSource;
  tokenSource: ConnectionSource;
  /** The CLI's default server: the one `org login` (or `org init`) chose, else the local default. */
  defaultUrl?: string;
}

/** Names a source for people: `--url`, `ORG_URL`, … */
export function describeSource(source: ConnectionSource, what: 'url' | 'token'): string {
  switch (source) {
    case 'flag':
      return what === 'url' ? '--url' : '--token';
    case 'env':
      return what === 'url' ? 'ORG_URL' : 'ORG_TOKEN';
    case 'credentials':
      return 'the saved login';
    case 'default':
      return 'the default address';
    case 'none':
      return 'nowhere';
  }
}

/** The folder of the credentials file: `ORG_CONFIG_DIR`, else `~/.config/org`. */
export function configDirOf(env: NodeJS.ProcessEnv): string {
  return resolve(env.ORG_CONFIG_DIR ?? join(homedir(), '.config', 'org'));
}

/** Normalises a base URL (no trailing slash); rejects what is not http(s). */
export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`not an http(s) URL: ${raw}`);
  return raw.replace(/\/+$/, '');
}

/** Resolves the connection of a command: flags > environment > credentials file > default. */
export async function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Promise<Connection> {
  const credentials = await readCredentials(configDirOf(env));
  let url: string;
  let urlSource: ConnectionSource;
  if (flags.url) [url, urlSource] = [flags.url, 'flag'];
  else if (env.ORG_URL) [url, urlSource] = [env.ORG_URL, 'env'];
  else if (credentials.default) [url, urlSource] = [credentials.default, 'credentials'];
  else [url, urlSource] = [DEFAULT_URL, 'default'];
  url = normalizeUrl(url);
  const saved = credentials.servers[url];
  let token: string | undefined;
  let tokenSource: ConnectionSource = 'none';
  if (flags.token) [token, tokenSource] = [flags.token, 'flag'];
  else if (env.ORG_TOKEN) [token, tokenSource] = [env.ORG_TOKEN, 'env'];
  else if (saved?.token) [token, tokenSource] = [saved.token, 'credentials'];
  return {
    url,
    urlSource,
    tokenSource,
    defaultUrl: normalizeUrl(credentials.default ?? DEFAULT_URL),
    ...(token ? { token } : {}),
    ...(tokenSource === 'credentials' && saved?.email ? { email: saved.email } : {}),
  };
}

/** A client for a resolved connection. */
export function clientFor(connection: Connection): OrgClient {
  return new OrgClient({ url: connection.url, ...(connection.token ? { token: connection.token } : {}) });
}
