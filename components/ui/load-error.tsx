/** A failed query: what could not be loaded, why, and a retry button. With stale data shown, a one-line status instead. */
export function LoadError({
  what,
  message,
  stale,
  onRetry,
}: {
  what: string;
  message: string;
  stale?: boolean;
  onRetry: () => void;
}) {
  if (stale) {
    return (
      <p role="status" className="sub">
        Showing the last good data; refreshing {what} failed: {message}
      </p>
    );
  }
  return (
    <div className="notice error" role="alert">
      <h2>Could not load {what}</h2>
      <p>{message}</p>
      <button className="button" type="button" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}
