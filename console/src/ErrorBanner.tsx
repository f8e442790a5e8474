import type { ApiError } from './api.js';

/** The API's own message, in an alert region so screen readers announce it as soon as it appears. */
export function ErrorBanner({ error, onDismiss }: { error: ApiError | null; onDismiss(): void }) {
  if (!error) return null;
  return (
    <div className="banner banner-error" role="alert">
      <p>
        <strong>{error.status ? `Error ${error.status}` : 'Error'}:</strong> <span className="banner-message">{error.message}</span>
      </p>
      <button type="button" className="link" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
