// Which rows of a long, fixed-height list to put in the DOM for a scroll position. Pure.

/**
 * Rows [start, end) cover the viewport at `scrollTop` plus `overscan` rows either side; `before` and `after` are the
 * rows left out above and below (their height is kept by spacers so the scrollbar is the full list's).
 */
export function turnWindow(
  count: number,
  scrollTop: number,
  viewport: number,
  rowH: number,
  overscan: number,
): { start: number; end: number; before: number; after: number } {
  const first = Math.floor(Math.max(0, scrollTop) / rowH);
  const start = Math.max(0, Math.min(count, first - overscan));
  const end = Math.min(count, first + Math.ceil(viewport / rowH) + overscan);
  return { start, end: Math.max(start, end), before: start, after: count - Math.max(start, end) };
}
