import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { encodeCandidates, type StoredCandidate } from "../codecs/candidates";
import { migratedDatabases } from "../../test/migrated-at";
import { openDb } from "./client";
import { decisionsPage } from "../store/routing";
import { decisionOf } from "../store/trace";
import { sqliteStore } from "../store/store";
import { decisionsLost } from "../store/worker-activity";

const T = 1_764_417_600_000;
const { databaseAt, cleanup } = migratedDatabases();
afterEach(cleanup);

const c = (worker_id: string, overlap: number, prefill: number, decode: number, cost?: number): StoredCandidate => ({
  worker_id,
  overlap_blocks: overlap,
  prefill_blocks: prefill,
  decode_blocks: decode,
  cost: cost ?? prefill + decode - overlap,
});

// Lists as the previous release stored them (JSON text); `compact` says whether the migration re-encodes them.
const lists: { name: string; json: string; compact: boolean }[] = [
  { name: "overlap 0", json: JSON.stringify([c("w1", 0, 1103, 0), c("w2", 0, 1103, 12)]), compact: true },
  { name: "overlaps", json: JSON.stringify([c("w1", 265, 631, 7730), c("w2", 0, 608, 7281)]), compact: true },
  { name: "other costs", json: JSON.stringify([c("w1", 4, 6, 100, 12.5), c("w2", 0, 1, 1, 0.1 + 0.2)]), compact: true },
  { name: "escaped ids", json: JSON.stringify([c('g"ä\\1', 0, 1, 2), c("w2", 1, 2, 3)]), compact: true },
  { name: "a comma in an id", json: JSON.stringify([c("w,1", 0, 1, 1), c("w2", 0, 1, 1)]), compact: false },
  { name: "an id starting with [", json: JSON.stringify([c("[w]", 0, 1, 1)]), compact: false },
  {
    name: "a field missing",
    json: '[{"worker_id":"w1","overlap_blocks":0,"prefill_blocks":1,"cost":1}]',
    compact: false,
  },
  { name: "not JSON", json: "[oops", compact: false },
];

describe("migration 0018 (compact candidate lists)", () => {
  it("re-encodes every list it can hold and every reader gets the same JSON back", async () => {
    const file = databaseAt("0017_policy_guards");
    const old = new Database(file);
    const put = old.prepare(
      `INSERT INTO route_decisions (id, ts, request_id, session_id, prompt_blocks, chosen_worker_id, chosen_overlap_blocks,
         best_overlap_blocks, candidate_count, candidates, overlap_credit, prefill_load_scale, temperature)
       VALUES (?, ?, ?, 's1', 10, ?, 0, 0, ?, ?, 1, 1, 0)`,
    );
    lists.forEach((l, i) => {
      const chosen = l.json.startsWith('[{"worker_id":"')
        ? (JSON.parse(l.json) as StoredCandidate[])[0]!.worker_id
        : "w1";
      put.run(`d${i}`, T + i, `r${i}`, chosen, 2, l.json);
    });
    old.close();

    const db = openDb(file);
    const stored = db.$client.prepare("SELECT id, candidates FROM route_decisions ORDER BY ts").all() as {
      id: string;
      candidates: string;
    }[];
    for (const [i, l] of lists.entries()) {
      const s = stored[i]!.candidates;
      if (l.compact) expect(s, l.name).toBe(encodeCandidates(JSON.parse(l.json) as StoredCandidate[]));
      else expect(s, l.name).toBe(l.json);
      expect((await decisionOf(sqliteStore(db), `r${i}`))?.candidates, l.name).toBe(l.json);
    }
    const page = await decisionsPage(sqliteStore(db), { from: T, to: T + 100, limit: 100 });
    expect(page.map((d) => d.candidates)).toEqual([...lists].reverse().map((l) => l.json));
    expect((await decisionsLost(sqliteStore(db), "w2", T, T + 100)).recent.map((d) => d.candidates)).toEqual(
      [4, 3, 2, 1, 0].map((i) => lists[i]!.json),
    );
    const indexes = db.$client
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'route_decisions'")
      .pluck()
      .all();
    expect(indexes).not.toContain("route_decisions_session");
  });
});
