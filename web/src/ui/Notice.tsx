/** Inline messages: explained errors, successes, empty states and loading placeholders. */
import type { ReactNode } from 'react';
import { explain, type FieldLabels } from './explain';

/** Props of {@link ErrorNote}. */
export interface ErrorNoteProps {
  error: unknown;
  onDismiss?: () => void;
  /** The form's labels, so field errors name what the user sees. */
  labels?: FieldLabels;
  /** Actions offered with the message (e.g. "Open the existing one"). */
  children?: ReactNode;
}

/** An error in the user's words (role=alert): what happened, what to do, which fields. */
export function ErrorNote({ error, onDismiss, labels, children }: ErrorNoteProps) {
  if (error === null || error === undefined) return null;
  const { title, detail, hint, fields } = explain(error, labels);
  return (
    <div className="notice notice-error" role="alert">
      <div className="notice-body">
        <strong>{title}</strong>
        {detail ? <> {detail}</> : null}
        {fields.length > 0 ? (
          <ul className="field-errors">
            {fields.map((field) => (
              <li key={`${field.label}:${field.message}`}>
                <strong>{field.label}</strong> {field.message}
              </li>
            ))}
          </ul>
        ) : null}
        {hint ? <div className="notice-hint">{hint}</div> : null}
        {children ? <div className="notice-actions">{children}</div> : null}
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

/** Grey placeholder lines shown while something loads (announced once as busy). */
export function Skeleton({ lines = 3, label }: { lines?: number; label: string }) {
  return (
    <div className="skeleton" role="status" aria-busy="true" aria-label={label}>
      {Array.from({ length: lines }, (_, index) => (
        <span key={index} className="skeleton-line" />
      ))}
    </div>
  );
}
