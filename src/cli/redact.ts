/** Hiding the password of URLs the CLI prints (store URLs, skills remotes). */

/** A store URL or skills remote without its password, for the start-up lines (a path is shown as it is). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:@/\s]+):[^@/\s]*@/, '//$1:***@');
  }
}
