/** Newer / older buttons for a cursor-paged list; "Older" is disabled on the last page. */
export function Pager({
  label,
  page,
  hasOlder,
  onNewer,
  onOlder,
}: {
  label: string;
  page: number;
  hasOlder: boolean;
  onNewer: () => void;
  onOlder: () => void;
}) {
  if (page === 1 && !hasOlder) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="button" disabled={page === 1} onClick={onNewer}>
        ← Newer
      </button>
      <span className="sub">Page {page}</span>
      <button type="button" className="button" disabled={!hasOlder} onClick={onOlder}>
        Older →
      </button>
    </nav>
  );
}
