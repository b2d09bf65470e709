/** Members and pending invites; share the workspace by e-mail with a role. */
import { useState } from 'react';
import { structurePath } from '../api/client';
import { useSession } from '../api/context';
import type { Invite, Members, Role } from '../api/types';
import { formatTime } from '../ui/format';
import { Empty, ErrorNote, InfoNote } from '../ui/Notice';
import { useLoad } from '../ui/useLoad';

/** The members section. */
export function MembersSection({ structureId }: { structureId: string }) {
  const { api } = useSession();
  const members = useLoad((signal) => api.get<Members>(`${structurePath(structureId)}/members`, { signal }), [api, structureId]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('operator');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState<Invite | null>(null);

  const share = async () => {
    setBusy(true);
    setError(null);
    setSent(null);
    try {
      const { invite } = await api.post<{ invite: Invite }>(`${structurePath(structureId)}/share`, { email: email.trim(), role });
      setSent(invite);
      setEmail('');
      await members.reload();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
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
            <option value="viewer">viewer</option>
            <option value="operator">operator</option>
            <option value="owner">owner</option>
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
      <ErrorNote error={members.error ?? error} onDismiss={() => setError(null)} />
      {members.data ? (
        <table className="table table-dense">
          <thead>
            <tr>
              <th>E-mail</th>
              <th>Role</th>
            </tr>
          </thead>
          <tbody>
            {members.data.members.map((member) => (
              <tr key={member.user_id}>
                <td>{member.email || <span className="muted">{member.user_id}</span>}</td>
                <td>
                  <span className={`role-chip role-${member.role}`}>{member.role}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h3>Pending invites</h3>
      {members.data && invites.length === 0 ? <Empty>No pending invite.</Empty> : null}
      {invites.length > 0 ? (
        <table className="table table-dense">
          <thead>
            <tr>
              <th>E-mail</th>
              <th>Role</th>
              <th>Expires</th>
            </tr>
          </thead>
          <tbody>
            {invites.map((invite) => (
              <tr key={invite.id}>
                <td>{invite.email}</td>
                <td>
                  <span className={`role-chip role-${invite.role}`}>{invite.role}</span>
                </td>
                <td className="muted nowrap">{formatTime(invite.expires_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
