import { describe, expect, it } from "vitest";
import { PRESSURE_RETENTION_CANDIDATE } from "../../test/preview-candidates";
import { ofKind, runScenario } from "./test-support";

// A turn a worker refuses (its prompt and output can never fit the KV left beside pinned blocks) gets no answer and
// dispatches no tool calls: its agent ends there, its session ends with it, and the workload starts another. Before,
// the agent waited forever for tools never dispatched, its session never ended, and the pressure scenario with the
// shared prompt pinned fell from 16 live sessions to a few within an hour.

describe("a refused turn", () => {
  const events = runScenario({
    scenario: "pressure",
    seconds: 3_600,
    policies: { retention: PRESSURE_RETENTION_CANDIDATE },
  });
  const requests = ofKind(events, "request");
  const refused = requests.filter((r) => r.finish_reason === "context_too_long");

  it("ends its agent: nothing more is sent on that trajectory", () => {
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      const later = requests.filter((q) => q.trajectory_id === r.trajectory_id && q.arrived_at > r.finished_at!);
      expect(later).toEqual([]);
    }
  });

  it("lets the workload start other sessions: the cluster keeps its load", () => {
    const last = requests.filter((r) => r.arrived_at >= requests.at(-1)!.arrived_at - 300_000);
    expect(new Set(last.map((r) => r.session_id)).size).toBeGreaterThanOrEqual(12);
  });
});
