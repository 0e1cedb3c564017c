import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { ingestBody } from "../ingest/ingest";
import { ChainCompactor } from "./compact-chains";
import { SCENARIO_NAMES } from "./scenarios";
import { runScenario } from "./test-support";

// Every scenario's compact lines, posted in order as the simulator's --out file holds them, are stored without one
// refusal: a request names as its base only a request of its trajectory that arrived no later (a speculative prefill
// that arrived first and finished after a later turn goes in full). SWITCHYARD_PREFIX_CHECK_MINUTES sets the length
// (default 10 simulated minutes each; the closing note of the change ran 30).

const MINUTES = Number(process.env.SWITCHYARD_PREFIX_CHECK_MINUTES ?? 10);

describe("compact chains of every scenario and seed are stored without a refusal", () => {
  it.each(SCENARIO_NAMES.flatMap((scenario) => [1, 2, 3].map((seed) => [scenario, seed] as const)))(
    "%s, seed %i",
    (scenario, seed) => {
      const compactor = new ChainCompactor();
      const lines = runScenario({ scenario, seed, seconds: MINUTES * 60 }).map((e) => compactor.line(e).line);
      const db = testDb();
      const refused: string[] = [];
      for (let i = 0; i < lines.length; i += 5_000) {
        const r = ingestBody(db, lines.slice(i, i + 5_000).join("\n"), "application/x-ndjson");
        for (const item of r.items ?? []) if (item.status === "rejected") refused.push(`${item.code}: ${item.error}`);
      }
      expect(refused.slice(0, 3)).toEqual([]);
      expect(refused.length).toBe(0);
    },
    120_000,
  );
});
