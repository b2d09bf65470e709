/** Inline messages: errors from problem details, successes, and empty states. */
import type { ReactNode } from 'react';
import { ApiError, errorMessage } from '../api/client';

/** An error message (role=alert), with field errors listed when the server sent them. */
export function ErrorNote({ error, onDismiss }: { error: unknown; onDismiss?: () => void }) {
  if (error === null || error === undefined) return null;
  const problem = error instanceof ApiError ? error.problem : undefined;
  const fields = problem?.errors ?? [];
  return (
    <div className="notice notice-error" role="alert">
      <div className="notice-body">
        <strong>{problem?.title ?? 'Error'}</strong>
        {problem ? ` (${problem.status})` : ''}: {problem?.detail ?? errorMessage(error)}
        {fields.length > 1 || (fields.length === 1 && !problem?.detail?.includes(fields[0]!.path)) ? (
          <ul className="field-errors">
            {fields.map((field) => (
              <li key={`${field.path}:${field.message}`}>
                <code>{field.path}</code> {field.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      {onDismiss ? (
        <button type="button" className="btn-icon" aria-label="Dismiss" onClick={onDismiss}>
          ×
        </button>
      ) : null}
    </div>
  );
}

/** A success or information message (role=status). */
export function InfoNote({ children, tone = 'info' }: { children: ReactNode; tone?: 'info' | 'success' | 'warning' }) {
  return (
    <div className={`notice notice-${tone}`} role="status">
      <div className="notice-body">{children}</div>
    </div>
  );
}

/** Placeholder for an empty list. */
export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
