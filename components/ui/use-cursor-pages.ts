"use client";
import { useState } from "react";

/**
 * Cursor paging for a newest-first list: the cursors of the pages walked so far. Page 1 has no cursor; a change
 * of `resetKey` (range, filters) goes back to page 1.
 */
export function useCursorPages<C>(resetKey: string) {
  const [state, setState] = useState<{ key: string; stack: C[] }>({ key: resetKey, stack: [] });
  const stack = state.key === resetKey ? state.stack : [];
  if (state.key !== resetKey) setState({ key: resetKey, stack: [] });
  return {
    cursor: stack.length ? stack[stack.length - 1]! : null,
    page: stack.length + 1,
    older: (next: C) => setState({ key: resetKey, stack: [...stack, next] }),
    newer: () => setState({ key: resetKey, stack: stack.slice(0, -1) }),
  };
}
