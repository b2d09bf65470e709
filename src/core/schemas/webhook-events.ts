/**
 * The event types a webhook can subscribe to, apart from their schema so the CLI's
 * command declarations can name them without loading the schema library.
 */
export const WEBHOOK_EVENT_TYPES = ['run.completed', 'run.failed', 'draft.created', 'node.state_changed'] as const;
