import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

interface ModalProps {
  title: string;
  /** `alertdialog` for confirmations, which interrupt the user and need an answer. */
  role?: 'dialog' | 'alertdialog';
  onClose(): void;
  children(ids: { descriptionId: string }): ReactNode;
}

/**
 * A modal on the native <dialog>: showModal() gives the focus trap, the inert background, Escape to close and
 * focus restored to the opener, without reimplementing any of them.
 */
function Modal({ title, role = 'dialog', onClose, children }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      role={role === 'alertdialog' ? 'alertdialog' : undefined}
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      onCancel={(event) => {
        // Escape: let React state decide, so the dialog and the state never disagree.
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children({ descriptionId })}
    </dialog>
  );
}

export interface Confirmation {
  title: string;
  message: string;
  confirmLabel: string;
  action(): Promise<void>;
}

/**
 * Asks before a destructive step; the action runs only on the explicit confirm button. The dialog closes before the
 * action starts, so a dialog the action opens (the new secret) never stacks on top of it.
 */
export function ConfirmDialog({ confirmation, onClose }: { confirmation: Confirmation; onClose(): void }) {
  const confirm = () => {
    onClose();
    void confirmation.action();
  };
  return (
    <Modal title={confirmation.title} role="alertdialog" onClose={onClose}>
      {({ descriptionId }) => (
        <>
          <p id={descriptionId}>{confirmation.message}</p>
          <div className="dialog-actions">
            {/* Cancel comes first and takes the initial focus, so Enter alone never destroys anything. */}
            <button type="button" autoFocus onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="danger" onClick={confirm}>
              {confirmation.confirmLabel}
            </button>
          </div>
        </>
      )}
    </Modal>
  );
}

type CopyState = 'idle' | 'copied' | 'failed';

/** A read-only value with a Copy button; falls back to selecting the text where the clipboard is not available. */
function CopyField({ label, value, name }: { label: string; value: string; name: string }) {
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<CopyState>('idle');
  const copy = async () => {
    input.current?.select();
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      // The clipboard API needs a secure context and permission; the legacy command works in more places.
      setState(document.execCommand('copy') ? 'copied' : 'failed');
    }
  };
  return (
    <div className="copy-field">
      <label htmlFor={inputId}>{label}</label>
      <div className="copy-row">
        <input id={inputId} ref={input} name={name} readOnly value={value} spellCheck={false} autoComplete="off" onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={copy} aria-label={`Copy ${label.toLowerCase()}`}>
          Copy
        </button>
      </div>
      <p className="copy-status" role="status">
        {state === 'copied' ? `${label} copied to the clipboard.` : state === 'failed' ? 'Could not copy; the text is selected, copy it with Ctrl+C.' : ''}
      </p>
    </div>
  );
}

/** A secret to show once, under a title that says how it came about (a new client, or a new secret). */
export interface ShownSecret {
  title: string;
  clientId: string;
  secret: string;
}

/** Shows a newly generated secret. The server keeps only its hash, so this dialog is the one chance to copy it. */
export function SecretDialog({ shown: { title, clientId, secret }, onClose }: { shown: ShownSecret; onClose(): void }) {
  return (
    <Modal title={title} onClose={onClose}>
      {({ descriptionId }) => (
        <>
          <p id={descriptionId} className="warning">
            This is the only time the secret is shown. Copy it now and keep it somewhere safe; if it is lost, generate a new one.
          </p>
          <CopyField label="Client ID" name="client_id" value={clientId} />
          <CopyField label="Client secret" name="client_secret" value={secret} />
          <p className="hint">
            Use them as HTTP Basic credentials for the compliance API: the client ID as user name, the secret as password.
          </p>
          <div className="dialog-actions">
            <button type="button" className="primary" onClick={onClose}>
              Done
            </button>
          </div>
        </>
      )}
    </Modal>
  );
}
