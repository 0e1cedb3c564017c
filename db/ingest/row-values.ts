// A stored row's values as the ingest modules build them (rows.ts, request-rows.ts, kv-rows.ts), in column order.

export type Row = (string | number | Buffer | null)[];

/** An optional event field as a column value: absent is NULL. */
export const opt = <T>(v: T | undefined) => (v === undefined ? null : v);
