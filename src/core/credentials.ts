/**
 * The CLI's credentials file (`~/.config/org/credentials.json`, mode 0600, or
 * `$ORG_CONFIG_DIR/credentials.json`): tokens keyed by server base URL.
 */
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, readJson, writeJsonAtomic } from './storage/index.js';

/** One saved server login. */
export interface SavedLogin {
  token: string;
  email?: string;
  saved_at: string;
}

/** The file's JSON, versioned so a later layout can be told apart. */
export interface CredentialsDoc {
  version: 1;
  /** Base URL of the server the CLI uses when none is given. */
  default?: string;
  servers: Record<string, SavedLogin>;
}

/** Path of the credentials file in `configDir`. */
export function credentialsPath(configDir: string): string {
  return join(configDir, 'credentials.json');
}

/** Reads the credentials file (empty when absent). */
export function readCredentials(configDir: string): Promise<CredentialsDoc> {
  return readJson<CredentialsDoc>(credentialsPath(configDir), { version: 1, servers: {} });
}

/**
 * Saves a login for `baseUrl`, atomically with mode 0600, and makes that URL the CLI's
 * default server unless `makeDefault` is false (only `org login` and `org init` choose
 * the default; a server starting elsewhere must not re-point it).
 */
export async function saveLogin(configDir: string, baseUrl: string, login: Omit<SavedLogin, 'saved_at'>, options: { makeDefault?: boolean } = {}): Promise<string> {
  const file = credentialsPath(configDir);
  const doc = await readCredentials(configDir);
  const url = baseUrl.replace(/\/+$/, '');
  doc.servers[url] = { ...login, saved_at: new Date().toISOString() };
  if (options.makeDefault !== false) doc.default = url;
  // The folder is org's own and holds tokens: its owner's alone, whatever the umask.
  await mkdir(configDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(configDir, PRIVATE_DIR_MODE);
  await writeJsonAtomic(file, doc, PRIVATE_FILE_MODE);
  await chmod(file, PRIVATE_FILE_MODE);
  return file;
}
