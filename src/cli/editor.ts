/** Opening files in the user's editor (`$VISUAL`, `$EDITOR`, else `vi`). */
import { spawnSync } from 'node:child_process';
import { OrgError } from '../core/errors.js';

/**
 * Runs the editor on `file` with the terminal handed over, and resolves when it exits.
 * It runs synchronously on purpose: while the editor owns the terminal, this process
 * must neither read keystrokes nor redraw (an Ink screen would otherwise fight the
 * editor for stdin and stdout). The editor command may carry arguments
 * (`EDITOR="code --wait"`), so it runs through the shell with the file passed as a
 * positional parameter, never spliced into the command text.
 */
export function openInEditor(file: string, env: NodeJS.ProcessEnv = process.env, terminal: boolean = Boolean(process.stdin.isTTY && process.stdout.isTTY)): Promise<void> {
  // vi without a terminal would wait for keys that never come (a script, CI, a pipe).
  if (!env.VISUAL && !env.EDITOR && !terminal) {
    return Promise.reject(new OrgError('invalid_request', `no editor: set $EDITOR (or $VISUAL), or edit ${file} yourself; without a terminal org does not start vi`));
  }
  const editor = env.VISUAL || env.EDITOR || 'vi';
  const result = spawnSync('sh', ['-c', `${editor} "$1"`, 'org-editor', file], { stdio: 'inherit', env });
  if (result.error) return Promise.reject(new OrgError('invalid_request', `could not start the editor "${editor}": ${result.error.message}`));
  if (result.status !== 0) return Promise.reject(new OrgError('invalid_request', `the editor "${editor}" exited with code ${result.status ?? 'null'}; nothing was saved`));
  return Promise.resolve();
}
