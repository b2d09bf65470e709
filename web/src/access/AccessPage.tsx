/** Keys and members (owner): MCP keys of every node, members, invites and sharing. */
import { useRole } from '../api/context';
import { useTitle } from '../ui/hooks';
import { InfoNote } from '../ui/Notice';
import { KeysSection } from './KeysSection';
import { MembersSection } from './MembersSection';
import { WorkspaceSection } from './WorkspaceSection';

/** The access page of a structure. */
export function AccessPage({ structureId }: { structureId: string }) {
  const role = useRole(structureId);
  useTitle('Keys & members');
  return (
    <div className="page">
      <div className="page-head">
        <h1>Keys &amp; members</h1>
      </div>
      {role !== 'owner' ? (
        <InfoNote tone="warning">Only owners of this workspace can manage MCP keys and members. Your role is {role ?? 'unknown'}.</InfoNote>
      ) : (
        <div className="access-grid">
          <KeysSection structureId={structureId} />
          <div className="access-column">
            <MembersSection structureId={structureId} />
            <WorkspaceSection structureId={structureId} />
          </div>
        </div>
      )}
    </div>
  );
}
