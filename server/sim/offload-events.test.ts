import { describe, expect, it } from "vitest";
import type { PolicyDocumentInputs } from "../../lib/policies/policies";
import { parseEvent, type TelemetryEventInput } from "../ingest/events";
import { Simulation } from "./engine";
import { toJsonLine } from "./json-lines";
import { offloadPolicies, OFFLOAD_VARIANTS } from "./offload-report";
import { scenarioByName } from "./scenarios";

// Everything the simulator sends must be accepted by the dashboard's ingest: with prefetch on, routing decisions once
// carried negative decode loads (refs on blocks shared by several prefetches were subtracted once per holder), and the
// dashboard refused them, so those decisions were lost.

describe("the offload scenario's events pass the dashboard's checks", () => {
  it.each(OFFLOAD_VARIANTS.flatMap((v) => [1, 5].map((seed) => [v, seed] as const)))(
    "%s, seed %d: every event of 20 simulated minutes is valid",
    (variant, seed) => {
      const start = 1_764_400_000_000;
      const sim = new Simulation({ scenario: scenarioByName("offload")!, seed, startMs: start });
      for (const [kind, doc] of Object.entries(offloadPolicies(variant))) {
        const r = sim.configure(kind as keyof PolicyDocumentInputs, doc);
        expect(r.ok).toBe(true);
      }
      const refused: string[] = [];
      let events = 0;
      sim.setSink((e: TelemetryEventInput) => {
        events++;
        // As the dashboard receives it: the NDJSON line, parsed.
        const r = parseEvent(JSON.parse(toJsonLine(e)));
        if (!r.ok && refused.length < 5) refused.push(`${e.kind}: ${r.error}`);
      });
      sim.runUntil(start + 1_200_000);
      expect(events).toBeGreaterThan(1_000);
      expect(refused).toEqual([]);
    },
  );
});
