/**
 * The webhooks of a structure: a form to register one (URL, event types, description),
 * the signing secret shown once with a copy button, the list with a remove action, and
 * per webhook its deliveries log.
 */
import { useState } from 'react';
import { WEBHOOK_EVENT_TYPES } from '../../../src/core/schemas/webhook-events.js';
import { structurePath } from '../api/client';
import { useSession } from '../api/context';
import type { CreatedWebhook, Webhook } from '../api/types';
import { Confirm } from '../ui/Dialog';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote } from '../ui/Notice';
import { SecretOnce } from '../ui/SecretOnce';
import { useToast } from '../ui/Toasts';
import { useAction } from '../ui/hooks';
import { useLoad } from '../ui/useLoad';
import { DeliveriesLog } from './DeliveriesLog';

/** What each event type means, as the form explains it. */
const EVENT_HELP: Record<(typeof WEBHOOK_EVENT_TYPES)[number], string> = {
  'run.completed': 'a run finished',
  'run.failed': 'a run failed',
  'draft.created': 'an agent proposed a skill draft',
  'node.state_changed': 'a node started or stopped working',
};

const LABELS = { url: 'URL', events: 'Events', description: 'Description' };

/** Webhooks list, registration form and deliveries. */
export function WebhooksSection({ structureId }: { structureId: string }) {
  const { api } = useSession();
  const toast = useToast();
  const base = `${structurePath(structureId)}/webhooks`;
  const webhooks = useLoad((signal) => api.get<{ webhooks: Webhook[] }>(base, { signal }).then((body) => body.webhooks), [api, base]);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(['run.completed', 'run.failed']);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const { busy, error, setError, run } = useAction();

  const register = () =>
    run(async () => {
      const body = { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) };
      const answer = await api.post<CreatedWebhook>(base, body);
      setCreated(answer);
      setUrl('');
      setDescription('');
      await webhooks.reload();
    });

  return (
    <>
      <section className="card" aria-labelledby="webhook-add-title">
        <h2 id="webhook-add-title">Add a webhook</h2>
        <p className="muted small">
          Each chosen event is sent as a signed POST (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>) and
          retried with backoff for about a day until the receiver answers 2xx.
        </p>
        <form
          className="webhook-form"
          onSubmit={(event) => {
            event.preventDefault();
            void register();
          }}
        >
          <label className="field">
            <span>URL</span>
            <input name="url" type="text" inputMode="url" required maxLength={2048} placeholder="https://example.com/hooks/org" value={url} onChange={(event) => setUrl(event.target.value)} />
          </label>
          <fieldset className="checks">
            <legend>Events</legend>
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <label key={type} className="check">
                <input
                  type="checkbox"
                  name={`event-${type}`}
                  checked={events.includes(type)}
                  onChange={(event) => setEvents((current) => (event.target.checked ? [...current, type] : current.filter((value) => value !== type)))}
                />
                <code>{type}</code> <span className="muted small">{EVENT_HELP[type]}</span>
              </label>
            ))}
          </fieldset>
          <label className="field">
            <span>Description</span>
            <input name="description" maxLength={200} placeholder="optional, e.g. billing system" value={description} onChange={(event) => setDescription(event.target.value)} />
          </label>
          <div>
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {busy ? 'Adding…' : 'Add webhook'}
            </button>
          </div>
        </form>
        {created ? (
          <SecretOnce key={created.secret} secret={created.secret} label="New webhook signing secret" noun="secret" onDone={() => setCreated(null)}>
            <strong>Copy this signing secret now.</strong> It is shown only once. Your receiver uses it to check that each delivery to {created.url} comes from this
            server.
          </SecretOnce>
        ) : null}
        <ErrorNote error={error} onDismiss={() => setError(null)} labels={LABELS} />
      </section>

      <section className="card" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Webhooks</h2>
        <ErrorNote error={webhooks.error} />
        {webhooks.data && webhooks.data.length === 0 ? <Empty>No webhook yet.</Empty> : null}
        {webhooks.data && webhooks.data.length > 0 ? (
          <table className="table table-dense webhooks">
            <thead>
              <tr>
                <th>URL</th>
                <th>Events</th>
                <th className="col-optional">Created</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.map((webhook) => (
                <WebhookRow
                  key={webhook.id}
                  structureId={structureId}
                  webhook={webhook}
                  open={open === webhook.id}
                  onToggle={() => setOpen((current) => (current === webhook.id ? null : webhook.id))}
                  onRemove={() => setRemoving(webhook)}
                />
              ))}
            </tbody>
          </table>
        ) : null}
      </section>

      {removing ? (
        <Confirm
          title={`Remove the webhook to ${removing.url}?`}
          message={<p>Nothing more is sent to it; deliveries still waiting for a retry are dropped with its log.</p>}
          confirmLabel="Remove webhook"
          danger
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await api.del(`${base}/${encodeURIComponent(removing.id)}`);
            if (created?.id === removing.id) setCreated(null);
            if (open === removing.id) setOpen(null);
            toast({ tone: 'success', message: `Removed the webhook to ${removing.url}.` });
            await webhooks.reload();
          }}
        />
      ) : null}
    </>
  );
}

interface WebhookRowProps {
  structureId: string;
  webhook: Webhook;
  open: boolean;
  onToggle: () => void;
  onRemove: () => void;
}

/** One webhook, and below it its deliveries while opened. */
function WebhookRow({ structureId, webhook, open, onToggle, onRemove }: WebhookRowProps) {
  return (
    <>
      <tr>
        <td className="wrap-anywhere">
          <code>{webhook.url}</code>
          {webhook.description ? <div className="muted small">{webhook.description}</div> : null}
        </td>
        <td>
          <span className="tags">
            {webhook.events.map((type) => (
              <span key={type} className="tag">
                {type}
              </span>
            ))}
          </span>
        </td>
        <td className="muted nowrap col-optional">{formatTime(webhook.created_at)}</td>
        <td className="actions">
          <button type="button" className="btn btn-small" aria-expanded={open} aria-label={`Deliveries of ${webhook.url}`} onClick={onToggle}>
            Deliveries
          </button>{' '}
          <button type="button" className="btn btn-small btn-danger-outline" aria-label={`Remove the webhook to ${webhook.url}`} onClick={onRemove}>
            Remove
          </button>
        </td>
      </tr>
      {open ? (
        <tr className="webhook-deliveries">
          <td colSpan={4}>
            <DeliveriesLog structureId={structureId} webhook={webhook} />
          </td>
        </tr>
      ) : null}
    </>
  );
}
