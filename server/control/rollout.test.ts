import { describe, expect, it } from "vitest";
import type { StatusRow, TargetRow } from "../../db/store/control";
import { rolloutView } from "./rollout";

const T = 1_764_417_600_000;
const target = (enabled = true): TargetRow => ({
  id: "a",
  name: "A",
  cluster: "default",
  adapter: "sim",
  config: {},
  kinds: ["routing", "frontend"],
  enabled,
});
const row = (o: Partial<StatusRow>): StatusRow => ({
  targetId: "a",
  kind: "routing",
  desiredVersion: 2,
  appliedVersion: 1,
  appliedAt: T,
  state: "pending",
  message: null,
  errors: null,
  attempts: 0,
  nextRetryAt: null,
  updatedAt: T,
  ...o,
});

describe("rolloutView", () => {
  it.each<[string, boolean, StatusRow[], Record<string, unknown>]>([
    ["never pushed: pending", true, [], { state: "pending", appliedVersion: null, message: null }],
    ["never pushed, disabled: stale", false, [], { state: "stale" }],
    [
      "applied the latest: in sync",
      true,
      [row({ desiredVersion: 2, appliedVersion: 2, state: "in_sync" })],
      { state: "in_sync", appliedVersion: 2 },
    ],
    [
      "in sync with an older version: pending",
      true,
      [row({ desiredVersion: 1, state: "in_sync" })],
      { state: "pending", appliedVersion: 1 },
    ],
    [
      "rejected the latest: rejected with the message",
      true,
      [row({ state: "rejected", message: "no" })],
      { state: "rejected", message: "no", appliedVersion: 1 },
    ],
    [
      "rejected with field reasons: the reasons by path",
      true,
      [
        row({
          state: "rejected",
          message: "no",
          errors: JSON.stringify([{ path: "rules.0.ttl_seconds", message: "too long" }]),
        }),
      ],
      { state: "rejected", errors: [{ path: "rules.0.ttl_seconds", message: "too long" }] },
    ],
    [
      "in sync: no reasons",
      true,
      [row({ desiredVersion: 2, appliedVersion: 2, state: "in_sync", errors: "[]" })],
      { state: "in_sync", errors: [] },
    ],
    [
      "rejected an older version: pending",
      true,
      [row({ desiredVersion: 1, state: "rejected", message: "no" })],
      { state: "pending", message: null },
    ],
    [
      "unreachable: with the next retry",
      true,
      [row({ state: "unreachable", message: "down", attempts: 3, nextRetryAt: T + 4_000 })],
      { state: "unreachable", message: "down", attempts: 3, nextRetryAt: T + 4_000 },
    ],
  ])("%s", (_name, enabled, statuses, expected) => {
    const view = rolloutView([target(enabled)], statuses, new Map([["default", { routing: 2 }]]));
    expect(view).toHaveLength(1);
    expect(view[0]).toMatchObject({ targetId: "a", targetName: "A", kind: "routing", latestVersion: 2, ...expected });
  });

  it("lists only kinds the target takes that have a published version", () => {
    const view = rolloutView([target()], [], new Map([["default", { routing: 1, frontend: 3, autoscaling: 4 }]]));
    expect(view.map((e) => [e.kind, e.latestVersion])).toEqual([
      ["routing", 1],
      ["frontend", 3],
    ]);
  });
});
