/**
 * Copy-pasteable commands in hints: every argument quoted for a POSIX shell only when it
 * needs it (`Blank one` → `'Blank one'`, `it's` → `'it'\''s'`), so a printed command runs
 * as printed.
 */

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argument as a shell reads it back unchanged. */
export function quoteArg(value: string): string {
  if (value !== '' && SAFE.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A command line from its words, each quoted as needed: `commandLine('org', 'chat', 'Demo one')` → `org chat 'Demo one'`. */
export function commandLine(...words: string[]): string {
  return words.map(quoteArg).join(' ');
}
