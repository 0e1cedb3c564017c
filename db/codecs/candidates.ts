// A route decision's candidate list as stored: one `;`-separated entry per candidate, `worker,prefill,decode`, then
// `,overlap` when it is not 0 or the cost is not the default, then `,cost` when it is not the default (prefill + decode
// − overlap, what the router charges at unit credit and scale). Lists whose worker ids contain `,` or `;` or start with
// `[` are stored as the JSON array (as every row was before this encoding). Pure; no I/O.

/** A candidate as the route.decision event carries it (fields in the event schema's order). */
export type StoredCandidate = {
  worker_id: string;
  overlap_blocks: number;
  prefill_blocks: number;
  decode_blocks: number;
  cost: number;
};

const plain = (id: string) => !id.includes(",") && !id.includes(";") && !id.startsWith("[");

/** The stored text of a candidate list (blocks are non-negative integers, as the event schema checks). */
export function encodeCandidates(candidates: readonly StoredCandidate[]): string {
  if (!candidates.every((c) => plain(c.worker_id))) return JSON.stringify(candidates);
  return candidates
    .map((c) => {
      const head = `${c.worker_id},${c.prefill_blocks},${c.decode_blocks}`;
      if (c.cost !== c.prefill_blocks + c.decode_blocks - c.overlap_blocks)
        return `${head},${c.overlap_blocks},${JSON.stringify(c.cost)}`;
      return c.overlap_blocks === 0 ? head : `${head},${c.overlap_blocks}`;
    })
    .join(";");
}

/** The JSON array text of a stored candidate list: exactly `JSON.stringify` of the list the event carried. */
export function candidatesJson(stored: string): string {
  if (stored.startsWith("[")) return stored;
  const out: string[] = [];
  for (const entry of stored.split(";")) {
    const f = entry.split(",");
    if (f.length < 3 || f.length > 5) throw new Error(`bad stored candidate: ${entry.slice(0, 80)}`);
    const [id, prefill, decode, overlap = "0"] = f as [string, string, string, string?];
    const cost = f[4] ?? JSON.stringify(Number(prefill) + Number(decode) - Number(overlap));
    out.push(
      `{"worker_id":${JSON.stringify(id)},"overlap_blocks":${overlap},"prefill_blocks":${prefill},"decode_blocks":${decode},"cost":${cost}}`,
    );
  }
  return `[${out.join(",")}]`;
}
