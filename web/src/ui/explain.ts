/**
 * Failures in the user's words: what happened and what to do, from the server's problem
 * details (its `code`, `status`, `detail` and field errors) or from a failed connection.
 * No status numbers, schema paths or validator jargon reach the page: field paths become
 * the form's own labels, and validator phrases become plain sentences. Pure.
 */
import { ApiError } from '../api/client';

/** A field error as shown: the form's label for it and a plain message. */
export interface FieldMessage {
  label: string;
  message: string;
}

/** An explained failure. */
export interface Explained {
  /** What happened, one short sentence. */
  title: string;
  /** The server's own detail when it adds something (it is written for people). */
  detail?: string;
  /** What to do about it. */
  hint?: string;
  fields: FieldMessage[];
}

/** Labels of a form's fields by their last path segment (`name`, `role_id`, …). */
export type FieldLabels = Readonly<Record<string, string>>;

const PHRASES: [RegExp, (match: RegExpMatchArray) => string][] = [
  [/^must NOT have fewer than 1 characters?$/i, () => 'cannot be empty'],
  [/^must NOT have fewer than (\d+) characters?$/i, (m) => `needs at least ${m[1]} characters`],
  [/^must NOT have more than (\d+) characters?$/i, (m) => `can have at most ${m[1]} characters`],
  [/^must (?:NOT have fewer than|have at least) 1 item(?:s|\(s\))?$/i, () => 'needs at least one choice'],
  [/^must (?:NOT have fewer than|have at least) (\d+) item(?:s|\(s\))?$/i, (m) => `needs at least ${m[1]} choices`],
  [/^must NOT have more than (\d+) items?$/i, (m) => `can have at most ${m[1]} entries`],
  [/^must have required property '([^']+)'$/i, () => 'is required'],
  [/^(must match pattern .*|has an invalid format|must match format .*)$/i, () => 'is not in the expected form'],
  [/^must be equal to (constant|one of the allowed values).*$/i, () => 'is not one of the allowed values'],
  [/^does not match any allowed shape$/i, () => 'is not one of the allowed values'],
  [/^must be (string|number|integer|boolean|object|array)$/i, (m) => `must be ${m[1] === 'integer' ? 'a whole number' : `a ${m[1]}`}`],
  [/^must be <= (\d+)$/i, (m) => `can be at most ${m[1]}`],
  [/^must be >= (\d+)$/i, (m) => `must be at least ${m[1]}`],
];

/** A validator phrase in plain words (unknown phrases pass through). */
export function plainMessage(message: string): string {
  for (const [pattern, say] of PHRASES) {
    const match = pattern.exec(message.trim());
    if (match) return say(match);
  }
  return message;
}

/** Labels of the API's field names that no form names otherwise. */
const API_LABELS: FieldLabels = {
  role_id: 'Role id',
  parent_id: 'Reports to',
  parent: 'Reports to',
  container_url: 'Container URL',
  starting_context: 'Starting context',
  structure_id: 'Workspace',
  tool_url: 'Tool URL',
  x: 'Position x',
  y: 'Position y',
};

/** API words in a server's sentence, in the words of the pages. */
const API_WORDS: [RegExp, string | ((match: string, ...groups: string[]) => string)][] = [
  [/\b(\d+) child node\(s\)/g, (_match, count) => `${count} report${count === '1' ? '' : 's'}`],
  [/\bchild node\(s\)/g, 'reports'],
  [/\brole_id\b/g, 'role id'],
  [/\bparent_id\b/g, 'manager'],
  [/\bcontainer_url\b/g, 'container URL'],
  [/\bstarting_context\b/g, 'starting context'],
  [/\bstructure (?=[0-9a-f]{8}-)/g, 'workspace '],
  [/\bstructure\b/g, 'workspace'],
];

/** A server's sentence with the API's field names and jargon in plain words. */
export function plainDetail(text: string): string {
  return API_WORDS.reduce((current, [pattern, words]) => (typeof words === 'string' ? current.replace(pattern, words) : current.replace(pattern, words)), text);
}

/** The label of a field path (`body.frontmatter.name` → the form's "Name"). */
export function fieldLabel(path: string, labels: FieldLabels = {}): string {
  const parts = path.split('.').filter((part) => !['body', 'querystring', 'params', 'headers', 'frontmatter'].includes(part) && !/^\d+$/.test(part));
  const last = parts[parts.length - 1] ?? path;
  return labels[last] ?? labels[parts.join('.')] ?? API_LABELS[last] ?? last.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase());
}

const BY_STATUS: Record<number, { title: string; hint?: string }> = {
  400: { title: 'Some of what you entered was not accepted.', hint: 'Correct the fields named below and try again.' },
  401: { title: 'Your sign-in is no longer valid.', hint: 'Sign in again with a current token.' },
  403: { title: 'Your role in this workspace does not allow this.', hint: 'Ask an owner of the workspace for the operator or owner role.' },
  404: { title: 'That no longer exists.', hint: 'It may have been deleted or renamed meanwhile; reload the page.' },
  409: { title: 'That clashes with what is already there.' },
  410: { title: 'That link has expired or was already used.', hint: 'Ask for a new invite.' },
  412: { title: 'It changed since you opened it.', hint: 'Reload to see what it is now, then try again.' },
  413: { title: 'That is too large to send.', hint: 'Attachments can be at most 10 MiB each, 25 MiB in all.' },
  415: { title: 'The server could not read what was sent.', hint: 'Reload the page and try again.' },
  429: { title: 'Too many requests in a short time.', hint: 'Wait a moment and try again.' },
  503: { title: 'The server is busy or shutting down.', hint: 'Try again in a moment.' },
  504: { title: 'The server took too long to answer.', hint: 'The work may still finish; reload to see it.' },
};

/** Explains anything thrown by an API call (or elsewhere). */
export function explain(error: unknown, labels: FieldLabels = {}): Explained {
  if (error instanceof ApiError) {
    const problem = error.problem;
    const known = BY_STATUS[problem.status] ?? (problem.status >= 500 ? { title: 'The server ran into a problem.', hint: 'Try again; if it keeps happening, check the server log.' } : { title: 'The request did not go through.' });
    const fields = (problem.errors ?? []).map((field) => ({ label: fieldLabel(field.path, labels), message: plainMessage(field.message) }));
    const detail = problem.detail && fields.length === 0 && !/^(body|querystring|params|headers)\./.test(problem.detail) ? problem.detail : undefined;
    const title = problem.code === 'already_exists' ? 'That already exists.' : known.title;
    const hint = problem.status === 429 && typeof problem.retry_after === 'number' ? `Wait ${problem.retry_after} s and try again.` : known.hint;
    return { title, ...(detail ? { detail: sentence(plainDetail(detail)) } : {}), ...(hint ? { hint } : {}), fields };
  }
  if (error instanceof DOMException && error.name === 'AbortError') return { title: 'Cancelled.', fields: [] };
  if (error instanceof TypeError) return { title: 'The server could not be reached.', hint: 'Check that org serve is running and your connection works, then try again.', fields: [] };
  return { title: sentence(error instanceof Error ? error.message : String(error)), fields: [] };
}

/** A server message as a sentence: capital first letter, final full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const first = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}
