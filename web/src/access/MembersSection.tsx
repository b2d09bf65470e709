/**
 * Members and pending invites of a structure (owner): share by e-mail with a role,
 * change a member's role, remove a member, cancel a pending invite.
 */
import { useState } from 'react';
import { structurePath } from '../api/client';
import { useSession } from '../api/context';
import type { Invite, Member, Members, Role } from '../api/types';
import { Confirm } from '../ui/Dialog';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote, InfoNote, Skeleton } from '../ui/Notice';
import { useToast } from '../ui/Toasts';
import { useAction } from '../ui/hooks';
import { useLoad } from '../ui/useLoad';

const ROLES: Role[] = ['viewer', 'operator', 'owner'];

export function MembersSection({ structureId }: { structureId: string }) {
  const { api, me, refreshStructures } = useSession();
  const toast = useToast();
  const base = structurePath(structureId);
  const members = useLoad((signal) => api.get<Members>(`${base}/members`, { signal }), [api, base]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('operator');
  const { busy, error, setError, run } = useAction();
  const [sent, setSent] = useState<Invite | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [cancelling, setCancelling] = useState<Members['invites'][number] | null>(null);
  /** A change of the caller's own role, waiting for confirmation. */
  const [ownChange, setOwnChange] = useState<{ member: Member; next: Role } | null>(null);

  const share = () =>
    run(async () => {
      setSent(null);
      const { invite } = await api.post<{ invite: Invite }>(`${base}/share`, { email: email.trim(), role });
      setSent(invite);
      setEmail('');
      await members.reload();
    });

  const changeRole = async (member: Member, next: Role) => {
    setError(null);
    if (member.user_id === me.user?.id) {
      // Your own role: asked first, and no Undo (a lower role may not change it back).
      setOwnChange({ member, next });
      return;
    }
    try {
      await api.patch(`${base}/members/${encodeURIComponent(member.user_id)}`, { role: next });
      await members.reload();
      toast({
        tone: 'success',
        message: `${member.email} is now ${next}.`,
        action: {
          label: 'Undo',
          run: async () => {
            await api.patch(`${base}/members/${encodeURIComponent(member.user_id)}`, { role: member.role });
            await members.reload();
          },
        },
      });
    } catch (failure) {
      setError(failure);
      // The list shows the role the server has, not the one picked.
      await members.reload();
    }
  };

  const invites = (members.data?.invites ?? []).filter((invite) => invite.status === 'pending');
  return (
    <section className="card" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <form
        className="row gap wrap share-form"
        onSubmit={(event) => {
          event.preventDefault();
          void share();
        }}
      >
        <label className="field grow">
          <span>Invite by e-mail</span>
          <input name="email" type="email" required maxLength={254} placeholder="name@example.com" value={email} onChange={(event) => setEmail(event.target.value)} />
        </label>
        <label className="field">
          <span>Role</span>
          <select name="role" value={role} onChange={(event) => setRole(event.target.value as Role)}>
            {ROLES.map((candidate) => (
              <option key={candidate} value={candidate}>
                {candidate}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn btn-primary" disabled={busy || !email.trim()}>
          {busy ? 'Sending…' : 'Send invite'}
        </button>
      </form>
      {sent ? (
        <InfoNote tone="success">
          Invite sent to {sent.email} as {sent.role}; it expires {formatTime(sent.expires_at)}.
        </InfoNote>
      ) : null}
      <ErrorNote error={members.error ?? error} onDismiss={() => setError(null)} labels={{ email: 'E-mail', role: 'Role' }} />
      {!members.data && !members.error ? <Skeleton lines={3} label="Loading members" /> : null}
      {members.data ? (
        <table className="table table-dense members">
          <thead>
            <tr>
              <th>E-mail</th>
              <th>Role</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.members.map((member) => {
              const self = member.user_id === me.user?.id;
              return (
                <tr key={member.user_id}>
                  <td className="wrap-anywhere">
                    {member.email || <span className="muted">{member.user_id}</span>}
                    {self ? <span className="muted"> (you)</span> : null}
                  </td>
                  <td>
                    <select aria-label={`Role of ${member.email}`} className="select-small" value={member.role} onChange={(event) => void changeRole(member, event.target.value as Role)}>
                      {ROLES.map((candidate) => (
                        <option key={candidate} value={candidate}>
                          {candidate}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td className="actions">
                    <button type="button" className="btn btn-small btn-danger-outline" aria-label={`Remove ${member.email}`} onClick={() => setRemoving(member)}>
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <h3>Pending invites</h3>
      {members.data && invites.length === 0 ? <Empty>No pending invite.</Empty> : null}
      {invites.length > 0 ? (
        <table className="table table-dense invites">
          <thead>
            <tr>
              <th>E-mail</th>
              <th>Role</th>
              <th className="col-optional">Expires</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invites.map((invite) => (
              <tr key={invite.id}>
                <td className="wrap-anywhere">{invite.email}</td>
                <td>
                  <span className={`role-chip role-${invite.role}`}>{invite.role}</span>
                </td>
                <td className="muted nowrap col-optional">{formatTime(invite.expires_at)}</td>
                <td className="actions">
                  <button type="button" className="btn btn-small" aria-label={`Cancel invite for ${invite.email}`} onClick={() => setCancelling(invite)}>
                    Cancel invite
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {ownChange ? (
        <Confirm
          title={`Change your own role to ${ownChange.next}?`}
          message={
            <p>
              {ownChange.next === 'owner'
                ? 'You become an owner of this workspace.'
                : `As ${ownChange.next} you can no longer manage keys, members or webhooks here, and you cannot change your role back: another owner would have to.`}
            </p>
          }
          confirmLabel={`Become ${ownChange.next}`}
          danger={ownChange.next !== 'owner'}
          onClose={() => {
            setOwnChange(null);
            // Declined or done: the list shows the server's role either way.
            void members.reload();
          }}
          onConfirm={async () => {
            await api.patch(`${base}/members/${encodeURIComponent(ownChange.member.user_id)}`, { role: ownChange.next });
            await refreshStructures();
            toast({ tone: 'success', message: `You are now ${ownChange.next} of this workspace.` });
          }}
        />
      ) : null}
      {removing ? (
        <Confirm
          title={`Remove ${removing.email}?`}
          message={<p>They lose access to this workspace at once. To let them back in, send a new invite.</p>}
          confirmLabel="Remove member"
          danger
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await api.del(`${base}/members/${encodeURIComponent(removing.user_id)}`);
            await members.reload();
            toast({ tone: 'success', message: `Removed ${removing.email}.` });
          }}
        />
      ) : null}
      {cancelling ? (
        <Confirm
          title={`Cancel the invite of ${cancelling.email}?`}
          message={<p>The link in the e-mail stops working. You can invite them again at any time.</p>}
          confirmLabel="Cancel invite"
          danger
          onClose={() => setCancelling(null)}
          onConfirm={async () => {
            await api.del(`${base}/invites/${encodeURIComponent(cancelling.id)}`);
            await members.reload();
            toast({ tone: 'success', message: `Cancelled the invite of ${cancelling.email}.` });
          }}
        />
      ) : null}
    </section>
  );
}
