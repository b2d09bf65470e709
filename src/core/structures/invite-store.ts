/**
 * Where invites are kept, behind one interface with one implementation per backend (the
 * home's `.org/invites.json`, a PostgreSQL table). Only the acceptance token's hash is stored.
 */
import type { Role } from '../auth/roles.js';

/** An invite as stored. */
export interface InviteRecord {
  id: string;
  structure_id: string;
  email: string;
  role: Role;
  token_hash: string;
  status: 'pending' | 'accepted' | 'replaced' | 'revoked';
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** The invite storage contract, one implementation per backend; a shared contract suite runs against each. */
export interface InviteStore {
  /** Stores a new invite durably, marking the pending invites of the same structure and address `replaced`. */
  insert(invite: InviteRecord): Promise<void>;
  /** The invite whose token hashes to `hash`. */
  byTokenHash(hash: string): Promise<InviteRecord | undefined>;
  /** Marks a pending invite accepted; false when it was no longer pending (someone else took it). */
  claim(id: string, at: string): Promise<boolean>;
  /** Marks a pending invite of `structureId` revoked and returns it; undefined when there is no such pending invite. */
  revoke(structureId: string, id: string): Promise<InviteRecord | undefined>;
  /** Gives a claimed invite back (pending again), when what followed the claim failed. */
  release(id: string): Promise<void>;
  /** Pending invites of a structure (expired ones included), newest first. */
  pendingOf(structureId: string): Promise<InviteRecord[]>;
  /** Every invite, oldest first (for copying a home to another backend). */
  list(): Promise<InviteRecord[]>;
}
