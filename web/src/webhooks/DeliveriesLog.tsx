/**
 * The deliveries log of one webhook, newest first: event, status, the last response code
 * (or why there was none), attempts, when it was queued and when the next retry is due.
 * It refreshes itself every few seconds while open, and on demand.
 */
import { structurePath } from '../api/client';
import { useSession } from '../api/context';
import type { Webhook, WebhookDelivery } from '../api/types';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';

const STATUS_TEXT: Record<WebhookDelivery['status'], string> = { pending: 'waiting', delivered: 'delivered', failed: 'given up' };

/** How a delivery's last attempt ended, in words. */
function lastOutcome(delivery: WebhookDelivery): string {
  const last = delivery.attempts[delivery.attempts.length - 1];
  if (!last) return 'not tried yet';
  if (last.response_code !== null) return String(last.response_code);
  return last.error ?? 'no answer';
}

/** A webhook's deliveries. */
export function DeliveriesLog({ structureId, webhook }: { structureId: string; webhook: Webhook }) {
  const { api } = useSession();
  const path = `${structurePath(structureId)}/webhooks/${encodeURIComponent(webhook.id)}/deliveries`;
  const deliveries = useLoad((signal) => api.get<{ deliveries: WebhookDelivery[] }>(path, { signal }).then((body) => body.deliveries), [api, path], 5000);
  return (
    <div className="deliveries" role="region" aria-label={`Deliveries to ${webhook.url}`}>
      <div className="row gap">
        <strong>Deliveries</strong>
        <span className="muted small">newest first, the last 50</span>
        <button type="button" className="btn btn-small btn-ghost" onClick={() => void deliveries.reload()}>
          Refresh
        </button>
      </div>
      <ErrorNote error={deliveries.error} />
      {deliveries.data && deliveries.data.length === 0 ? <Empty>Nothing sent yet: deliveries appear here when a chosen event happens.</Empty> : null}
      {deliveries.data && deliveries.data.length > 0 ? (
        <table className="table table-dense">
          <thead>
            <tr>
              <th>Event</th>
              <th>Status</th>
              <th>Response</th>
              <th className="num">Attempts</th>
              <th className="col-optional">Queued</th>
              <th className="col-optional">Next attempt</th>
              <th className="col-optional">Delivery id</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.map((delivery) => (
              <tr key={delivery.id} data-delivery={delivery.id}>
                <td>
                  <code>{delivery.event_type}</code>
                </td>
                <td>
                  <span className={`badge-pill delivery-${delivery.status}`}>{STATUS_TEXT[delivery.status]}</span>
                </td>
                <td className="delivery-response">{lastOutcome(delivery)}</td>
                <td className="num">{delivery.attempts.length}</td>
                <td className="muted nowrap col-optional">{formatTime(delivery.created_at)}</td>
                <td className="muted nowrap col-optional">{delivery.next_attempt_at ? formatTime(delivery.next_attempt_at) : '—'}</td>
                <td className="col-optional">
                  <code className="small">{delivery.id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
