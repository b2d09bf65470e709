/**
 * The workspace itself (owner): rename it, or delete it into the archive (restorable from
 * the workspaces page, and right after from the toast).
 */
import { useState } from 'react';
import { structurePath } from '../api/client';
import { useSession } from '../api/context';
import { href, navigate } from '../router';
import { Confirm } from '../ui/Dialog';
import { useAction } from '../ui/hooks';
import { ErrorNote } from '../ui/Notice';
import { useToast } from '../ui/Toasts';

/** Rename and delete of a workspace. */
export function WorkspaceSection({ structureId }: { structureId: string }) {
  const { api, structures, refreshStructures } = useSession();
  const toast = useToast();
  const current = structures.find((structure) => structure.id === structureId);
  const [name, setName] = useState(current?.name ?? '');
  const [deleting, setDeleting] = useState(false);
  const { busy, error, run } = useAction();
  const rename = () =>
    run(async () => {
      await api.patch(structurePath(structureId), { name: name.trim() });
      await refreshStructures();
      toast({ tone: 'success', message: `Renamed to ${name.trim()}.` });
    });
  return (
    <section className="card" aria-labelledby="workspace-title">
      <h2 id="workspace-title">Workspace</h2>
      <form
        className="row gap wrap"
        onSubmit={(event) => {
          event.preventDefault();
          void rename();
        }}
      >
        <label className="field grow">
          <span>Name</span>
          <input name="name" required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <button type="submit" className="btn" disabled={busy || !name.trim() || name.trim() === current?.name}>
          {busy ? 'Saving…' : 'Rename'}
        </button>
      </form>
      <ErrorNote error={error} labels={{ name: 'Name' }} />
      <p className="hint">Deleting moves the workspace to the archive: nobody can open it, chat in it or use its keys until an owner restores it from the workspaces page.</p>
      <button type="button" className="btn btn-danger-outline" onClick={() => setDeleting(true)}>
        Delete workspace
      </button>
      {deleting ? (
        <Confirm
          title={`Delete ${current?.name ?? 'this workspace'}?`}
          message={<p>It moves to the archive with its nodes, chats and files; its members lose access and its MCP keys stop working until it is restored.</p>}
          confirmLabel="Delete workspace"
          danger
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await api.del(structurePath(structureId));
            navigate(href.home());
            await refreshStructures();
            toast({
              tone: 'success',
              message: `${current?.name ?? 'The workspace'} moved to the archive.`,
              action: {
                label: 'Undo',
                run: async () => {
                  await api.post(`${structurePath(structureId)}/restore`);
                  await refreshStructures();
                },
              },
            });
          }}
        />
      ) : null}
    </section>
  );
}
