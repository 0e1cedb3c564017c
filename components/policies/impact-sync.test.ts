import { describe, expect, it } from "vitest";
import type { PolicyKind } from "@/lib/policies/policies";
import { answeredTargets, impactBehind } from "./impact-sync";

const row = (
  kind: PolicyKind,
  latestVersion: number,
  state: "in_sync" | "pending" | "stale" | "rejected" | "unreachable",
) => ({
  kind,
  latestVersion,
  state,
});

describe("answeredTargets: rollout rows that answered one version of one kind", () => {
  it.each<[string, ReturnType<typeof row>[], number]>([
    ["no rows", [], 0],
    ["one in sync", [row("retention", 3, "in_sync")], 1],
    ["in sync and refused", [row("retention", 3, "in_sync"), row("retention", 3, "rejected")], 2],
    [
      "pending, stale and unreachable have not answered",
      [row("retention", 3, "pending"), row("retention", 3, "stale"), row("retention", 3, "unreachable")],
      0,
    ],
    ["another kind", [row("frontend", 3, "in_sync")], 0],
    ["a later version is the latest: nothing about this one", [row("retention", 4, "in_sync")], 0],
  ])("%s", (_, rows, want) => {
    expect(answeredTargets(rows, "retention", 3)).toBe(want);
  });
});

describe("impactBehind", () => {
  it.each<[number, number | undefined, boolean]>([
    [1, 0, true],
    [2, 1, true],
    [1, 1, false],
    [0, 1, false],
    [1, undefined, false],
  ])("rollout %s, panel %s → %s", (answered, shown, want) => {
    expect(impactBehind(answered, shown)).toBe(want);
  });
});
