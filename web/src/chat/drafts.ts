/**
 * Unsent messages, per person and node, kept in this tab's session storage: a message
 * typed and not sent survives a sign-out (a revoked or replaced token), a reload, or
 * leaving the node, and is gone once sent. Never shared with other tabs or kept past the tab.
 */

/** Whose draft for which node. */
export interface DraftKey {
  structureId: string;
  roleId: string;
  /** The person (user id), or the kind of principal. */
  userId: string;
}

const keyOf = ({ structureId, roleId, userId }: DraftKey) => `org.draft:${userId}:${structureId}:${roleId}`;

/** The unsent message of a node ('' when none). */
export function loadDraft(key: DraftKey): string {
  try {
    return sessionStorage.getItem(keyOf(key)) ?? '';
  } catch {
    return '';
  }
}

/** Keeps the unsent message (an empty one is forgotten). */
export function saveDraft(key: DraftKey, text: string): void {
  try {
    if (text) sessionStorage.setItem(keyOf(key), text);
    else sessionStorage.removeItem(keyOf(key));
  } catch {
    // Storage full or off: the draft lives only on the page.
  }
}

/** Forgets the message once it was sent. */
export function clearDraft(key: DraftKey): void {
  saveDraft(key, '');
}
