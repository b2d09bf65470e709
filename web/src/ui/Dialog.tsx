/**
 * Modal dialogs on the native `<dialog>` element: focus is trapped and Escape closes
 * it, so they are keyboard operable without extra code. When a dialog goes away, focus
 * returns to the control that opened it.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ErrorNote } from './Notice';

/** A modal dialog shown while mounted. */
export function Dialog({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      // Back to where the user was (if that control is still on the page).
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-label={title}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <header className="dialog-head">
        <h2>{title}</h2>
        <button type="button" className="btn-icon" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="dialog-body">{children}</div>
    </dialog>
  );
}

/** Props of {@link Confirm}. */
export interface ConfirmProps {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** Runs the action; a rejection is shown in the dialog, which then stays open. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/** A confirmation dialog that runs an action and shows its error, if any. */
export function Confirm({ title, message, confirmLabel, danger, onConfirm, onClose }: ConfirmProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <Dialog title={title} onClose={onClose}>
      <div className="confirm-message">{message}</div>
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className={danger ? 'btn btn-danger' : 'btn btn-primary'}
          disabled={busy}
          autoFocus
          onClick={() => {
            setBusy(true);
            setError(null);
            onConfirm().then(
              () => onClose(),
              (failure: unknown) => {
                setBusy(false);
                setError(failure);
              },
            );
          }}
        >
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
