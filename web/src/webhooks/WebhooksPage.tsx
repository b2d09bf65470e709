/**
 * Completion webhooks of a structure (owner): register a URL for event types (the signing
 * secret is shown once, as the API returns it), list and remove webhooks, and read each
 * webhook's deliveries log. Other roles get a note instead: the routes are owner-only.
 */
import { useRole } from '../api/context';
import { useTitle } from '../ui/hooks';
import { InfoNote } from '../ui/Notice';
import { WebhooksSection } from './WebhooksSection';

/** The webhooks page of a structure. */
export function WebhooksPage({ structureId }: { structureId: string }) {
  const role = useRole(structureId);
  useTitle('Webhooks');
  return (
    <div className="page page-narrow">
      <div className="page-head">
        <h1>Webhooks</h1>
      </div>
      {role !== 'owner' ? (
        <InfoNote tone="warning">Only owners of this workspace can manage its webhooks. Your role is {role ?? 'unknown'}.</InfoNote>
      ) : (
        <div className="webhooks-page">
          <WebhooksSection structureId={structureId} />
        </div>
      )}
    </div>
  );
}
