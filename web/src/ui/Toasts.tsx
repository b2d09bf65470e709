/**
 * Toasts on every signed-in page: `useToast()(…)` shows one; it goes away after a few
 * seconds (longer with an action), or when dismissed or its action ran. The region is a
 * polite live region, so screen readers hear each message once.
 */
import { createContext, useCallback, useContext, useEffect, useReducer, type ReactNode } from 'react';
import { ApiError } from '../api/client';
import { explain } from './explain';
import { initialToasts, toastReducer, type Toast, type ToastInput } from './toasts';

const ToastContext = createContext<((toast: ToastInput) => void) | null>(null);

/** Shows a toast (a no-op outside the provider, e.g. in component tests). */
export function useToast(): (toast: ToastInput) => void {
  return useContext(ToastContext) ?? (() => undefined);
}

/** Holds the toasts of the app and renders them. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [state, dispatch] = useReducer(toastReducer, initialToasts);
  const show = useCallback((toast: ToastInput) => dispatch({ type: 'show', toast }), []);
  return (
    <ToastContext.Provider value={show}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {state.toasts.map((toast) => (
          <ToastView
            key={toast.id}
            toast={toast}
            dismiss={dispatch}
            onAction={() => {
              if (!toast.action) return;
              dispatch({ type: 'busy', id: toast.id });
              toast.action.run().then(
                () => dispatch({ type: 'dismiss', id: toast.id }),
                (error: unknown) => {
                  dispatch({ type: 'dismiss', id: toast.id });
                  // A stale Undo: the thing was put back (or changed) elsewhere meanwhile. Nothing is lost: say so plainly.
                  if (error instanceof ApiError && error.status === 409) {
                    show({ tone: 'info', message: 'Nothing to undo: that was already put back or changed elsewhere. The page shows it as it is now.' });
                    return;
                  }
                  const { title, detail } = explain(error);
                  show({ tone: 'error', message: [title, detail].filter(Boolean).join(' ') });
                },
              );
            }}
          />
        ))}
      </div>
    </ToastContext.Provider>
  );
}

function ToastView({ toast, dismiss, onAction }: { toast: Toast; dismiss: (event: { type: 'dismiss'; id: number }) => void; onAction: () => void }) {
  const onDismiss = () => dismiss({ type: 'dismiss', id: toast.id });
  // A toast with an action stays long enough to reach it.
  useEffect(() => {
    if (toast.busy) return;
    const timer = window.setTimeout(() => dismiss({ type: 'dismiss', id: toast.id }), toast.action ? 10_000 : 5_000);
    return () => window.clearTimeout(timer);
  }, [toast.busy, toast.action, toast.id, dismiss]);
  return (
    <div className={`toast toast-${toast.tone}`}>
      <span className="toast-message">{toast.message}</span>
      {toast.action ? (
        <button type="button" className="btn btn-small" disabled={toast.busy} onClick={onAction}>
          {toast.busy ? 'Working…' : toast.action.label}
        </button>
      ) : null}
      <button type="button" className="btn-icon" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}
