/**
 * A secret the server shows only once (an MCP key's token, a webhook's signing secret):
 * the warning, the value ready to select, a Copy button that says whether the browser
 * allowed it, and Done to put it away for good.
 */
import { useState, type ReactNode } from 'react';

export interface SecretOnceProps {
  /** The value to copy. */
  secret: string;
  /** What the value is, for screen readers ("New MCP key token"). */
  label: string;
  /** What it is in the sentence "select the … and copy it by hand" ("token", "secret"). */
  noun: string;
  /** Why it matters, under the bold "Copy this … now.". */
  children: ReactNode;
  onDone: () => void;
}

export function SecretOnce({ secret, label, noun, children, onDone }: SecretOnceProps) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div className="token-once" role="status">
      <div className="token-warning">{children}</div>
      <div className="row gap">
        <input className="token-value" readOnly value={secret} aria-label={label} onFocus={(event) => event.target.select()} />
        <button type="button" className="btn btn-small" onClick={() => void copy()}>
          {copied === 'yes' ? 'Copied ✓' : 'Copy'}
        </button>
        <button type="button" className="btn btn-small btn-ghost" onClick={onDone}>
          Done
        </button>
      </div>
      {copied === 'failed' ? <p className="field-error">The browser did not allow copying; select the {noun} and copy it by hand.</p> : null}
    </div>
  );
}
