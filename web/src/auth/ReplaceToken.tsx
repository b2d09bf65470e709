/**
 * "New token" in the top bar: a person replaces their own sign-in token (after a leak,
 * or to retire a copy left on another machine). The old token stops working everywhere
 * at once, and chat streams opened with it end; this browser carries on with the new
 * one, shown once so that the CLI and scripts can be given it too.
 */
import { useState } from 'react';
import { useSession } from '../api/context';
import { Confirm, Dialog } from '../ui/Dialog';
import { SecretOnce } from '../ui/SecretOnce';

export function ReplaceToken() {
  const { api, adoptToken } = useSession();
  const [step, setStep] = useState<'idle' | 'confirm' | { token: string }>('idle');
  return (
    <>
      <button type="button" className="btn btn-ghost btn-small" onClick={() => setStep('confirm')}>
        New token
      </button>
      {step === 'confirm' ? (
        <Confirm
          title="Replace your token"
          message={
            <p>
              Your current token stops working at once: in the CLI, in scripts, in other browsers, and in chat streams open with it. This browser
              switches to the new token, which is shown once.
            </p>
          }
          confirmLabel="Replace token"
          danger
          onConfirm={async () => {
            const created = await api.post<{ token: string }>('/api/org/users/me/token');
            // Shown before the session moves to the new token, which re-renders the shell.
            setStep({ token: created.token });
            adoptToken(created.token);
          }}
          onClose={() => setStep((current) => (current === 'confirm' ? 'idle' : current))}
        />
      ) : null}
      {typeof step === 'object' ? (
        <Dialog title="Your new token" onClose={() => setStep('idle')}>
          <SecretOnce secret={step.token} label="New sign-in token" noun="token" onDone={() => setStep('idle')}>
            <strong>Copy this token now.</strong> It is shown only once. The old one no longer works: sign the CLI in again with{' '}
            <code>org login --token …</code>, and update any script that used it.
          </SecretOnce>
        </Dialog>
      ) : null}
    </>
  );
}
