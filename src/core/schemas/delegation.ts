/**
 * Delegation (API.md §10): a running turn of one node hands a task to another node of
 * its structure. The records here are what clients see of it: the `delegated_by` of the
 * delegated turn's user message, the `args` and `result` of the `delegate` tool events
 * in the delegating run's stream, and the `delegation` member of a container's turn.
 */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common.js';

/** On the user message of a delegated turn: who handed it over, from which run, in which chain. */
export const DelegatedBySchema = Type.Object(
  {
    role_id: Type.String({ description: 'the delegating node' }),
    run_id: Uuid,
    root_run_id: Type.String({ format: 'uuid', description: 'the run at the top of the chain (the one a person, key or channel started)' }),
  },
  { title: 'DelegatedBy', description: 'on the user message of a delegated turn: the delegating node, its run, and the root run of the chain' },
);
export type DelegatedBy = Static<typeof DelegatedBySchema>;

/** Why a delegation was refused: a machine-readable kind beside the `summary` that says it in words. */
export const DELEGATION_REFUSALS = ['invalid', 'unknown_role', 'self', 'chain', 'depth', 'limit', 'cycle', 'authority', 'ended', 'failed'] as const;
export type DelegationRefusal = (typeof DELEGATION_REFUSALS)[number];

/** `args` of the `tool_call` of tool `delegate`: the target, the task and the run that does it (`null` when refused). */
export const DelegateArgsSchema = Type.Object(
  { role_id: Type.String(), message: Type.String(), run_id: Nullable(Uuid) },
  { title: 'DelegateArgs' },
);
export type DelegateArgs = Static<typeof DelegateArgsSchema>;

/** `result` of the `tool_result` of tool `delegate`: how the delegated turn ended (or why it never started). */
export const DelegateResultSchema = Type.Object(
  {
    run_id: Nullable(Uuid),
    role_id: Type.String(),
    status: StringEnum(['complete', 'error']),
    summary: Type.String({ description: 'the delegated turn’s summary, or its error, or why the delegation was refused' }),
    artifacts: Type.Array(Type.String(), { description: 'names on the target node’s artifact shelf' }),
    refused: Type.Optional(StringEnum(DELEGATION_REFUSALS, { description: 'present when the delegation was refused: why, as a kind' })),
  },
  { title: 'DelegateResult' },
);
export type DelegateResult = Static<typeof DelegateResultSchema>;

/** The `delegation` member of a container's turn: where and with what it may delegate. */
export const DelegationAccessSchema = Type.Object(
  {
    api_url: Type.String({ description: 'the service’s base URL (ORG_PUBLIC_URL when set)' }),
    token: Type.String({ description: 'a run-scoped bearer, org_run_…, ended by the run’s end or expires_at' }),
    expires_at: Timestamp,
  },
  { title: 'DelegationAccess' },
);
export type DelegationAccess = Static<typeof DelegationAccessSchema>;

/** How many hops below the root run a delegation may go (`ORG_DELEGATION_DEPTH`; a root's child is hop 1). */
export const DELEGATION_DEPTH = 4;
/** How many delegations one turn may start. */
export const DELEGATIONS_PER_TURN = 8;
/** The tool name of delegations in the delegating run's stream. */
export const DELEGATE_TOOL = 'delegate';
/** Longest task a delegation hands over (the chat message limit). */
export const DELEGATION_MESSAGE_MAX = 100_000;
