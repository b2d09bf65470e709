/**
 * Who sent an inbound e-mail, as far as org can know (DESIGN.md "Trust boundaries"): the
 * relay that POSTs the message (it proves itself with ORG_INBOUND_SECRET) is the one that
 * talked to the sender's mail server, so it is the one that can check SPF, DKIM and DMARC.
 * It says what it found in an `Authentication-Results` header (RFC 8601) that it adds on
 * top of the message, under its own `authserv-id`, after removing any such header that
 * claims its id (RFC 8601 §5: a sender can write any header it likes).
 *
 * With `ORG_INBOUND_AUTHSERV_ID` set, org believes only the topmost header of that id, and
 * takes the `From` address as the sender when it records a `pass` aligned with the From
 * domain: `dmarc=pass` (header.from), `dkim=pass` (header.d, or the domain of header.i) or
 * `spf=pass` (smtp.mailfrom). Anything else is unauthenticated. Without it, org cannot
 * check and relies on the relay rejecting unauthenticated mail (docs/security.md).
 *
 * Only the few members of RFC 8601 needed here are read: the authserv-id, and for each
 * `method=result` its `ptype.property=value` pairs; comments in parentheses are skipped.
 */

/** One `method=result` of an Authentication-Results header, with its properties. */
export interface AuthResult {
  method: string;
  result: string;
  /** `header.from`, `header.d`, `header.i`, `smtp.mailfrom`, … (lower-case names). */
  props: Record<string, string>;
}

/** An Authentication-Results header, read. */
export interface AuthResults {
  authservId: string;
  results: AuthResult[];
}

/** Removes RFC 5322 comments `( … )`, nested ones included, outside quoted strings. */
function stripComments(value: string): string {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (char === '\\' && (quoted || depth > 0)) {
      if (depth === 0) out += char + (value[i + 1] ?? '');
      i++;
      continue;
    }
    if (depth === 0 && char === '"') quoted = !quoted;
    if (!quoted && char === '(') depth++;
    else if (!quoted && char === ')' && depth > 0) depth--;
    else if (depth === 0) out += char;
  }
  return out;
}

/** Reads one Authentication-Results header value; undefined when it has no authserv-id. */
export function parseAuthResults(value: string): AuthResults | undefined {
  const parts = stripComments(value).split(';').map((part) => part.trim());
  // `authserv-id [version]`
  const authservId = parts[0]?.split(/\s+/)[0]?.toLowerCase();
  if (!authservId) return undefined;
  const results: AuthResult[] = [];
  for (const part of parts.slice(1)) {
    const tokens = part.split(/\s+/).filter(Boolean);
    const head = /^([a-z0-9-]+)(?:\/\d+)?=([a-z]+)$/i.exec(tokens[0] ?? '');
    if (!head) continue;
    const props: Record<string, string> = {};
    for (const token of tokens.slice(1)) {
      const prop = /^([a-z]+\.[a-z0-9-]+)=(.+)$/i.exec(token);
      if (prop) props[prop[1]!.toLowerCase()] = prop[2]!.replace(/^"(.*)"$/, '$1');
    }
    results.push({ method: head[1]!.toLowerCase(), result: head[2]!.toLowerCase(), props });
  }
  return { authservId, results };
}

/** The domain of an address (after its last @), lower case. */
function domainOf(value: string): string {
  return value.slice(value.lastIndexOf('@') + 1).toLowerCase().replace(/\.$/, '');
}

/** True when `domain` is `from` or a parent domain of it (relaxed alignment, as DMARC's default). */
function aligned(domain: string, from: string): boolean {
  return domain !== '' && (from === domain || from.endsWith(`.${domain}`) || domain.endsWith(`.${from}`));
}

/**
 * True when the topmost `Authentication-Results` of `authservId` among `headers` (in
 * message order, topmost first) records a pass aligned with the domain of `from`.
 *
 * @example
 * senderAuthenticated(['mx.example.com; dmarc=pass header.from=example.com'], 'mx.example.com', 'alice@example.com') // true
 */
export function senderAuthenticated(headers: readonly string[], authservId: string, from: string): boolean {
  const ours = headers.map(parseAuthResults).find((parsed) => parsed?.authservId === authservId.toLowerCase());
  if (!ours) return false;
  const fromDomain = domainOf(from);
  return ours.results.some(({ method, result, props }) => {
    if (result !== 'pass') return false;
    if (method === 'dmarc') return domainOf(props['header.from'] ?? '') === fromDomain;
    if (method === 'dkim') return aligned(props['header.d'] ?? domainOf(props['header.i'] ?? ''), fromDomain);
    if (method === 'spf') return aligned(domainOf(props['smtp.mailfrom'] ?? ''), fromDomain);
    return false;
  });
}
