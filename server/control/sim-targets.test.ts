import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listTargets } from "../../db/store/control";
import { SQLITE, type TwoStores } from "../../test/stores";
import { registerSimTargets, simTargetId } from "./sim-targets";

const sim = { url: "http://127.0.0.1:3001", token: "sy_ctl_0123456789abcdef" };

describe("the policy targets npm start registers for its simulator", () => {
  let two: TwoStores;
  beforeEach(async () => {
    two = await SQLITE.open();
  });
  afterEach(async () => {
    await two.close();
  });

  const summary = async () =>
    (await listTargets(two.a)).map((t) => ({
      id: t.id,
      cluster: t.cluster,
      enabled: t.enabled,
      url: (t.config as { url: string }).url,
    }));

  it("one cluster: `sim` in the default cluster", async () => {
    await registerSimTargets(two.a, { ...sim, fleet: null }, 1);
    expect(await summary()).toEqual([{ id: "sim", cluster: "default", enabled: true, url: sim.url }]);
  });

  it("a fleet: one target per cluster at its path, in its cluster; an earlier run's `sim` paused, not deleted", async () => {
    await registerSimTargets(two.a, { ...sim, fleet: null }, 1);
    await registerSimTargets(two.a, { ...sim, fleet: ["production", "production@gpt-oss-120b", "staging"] }, 2);
    expect(await summary()).toEqual([
      { id: "sim", cluster: "default", enabled: false, url: sim.url },
      { id: "sim-production", cluster: "production", enabled: true, url: `${sim.url}/clusters/production` },
      // A model's own line: its cluster's control API, which the push tells the model.
      {
        id: "sim-production-gpt-oss-120b",
        cluster: "production@gpt-oss-120b",
        enabled: true,
        url: `${sim.url}/clusters/production`,
      },
      { id: "sim-staging", cluster: "staging", enabled: true, url: `${sim.url}/clusters/staging` },
    ]);
    // Back to one cluster: `sim` is enabled again.
    await registerSimTargets(two.a, { ...sim, fleet: null }, 3);
    expect((await summary()).find((t) => t.id === "sim")?.enabled).toBe(true);
  });

  it.each([
    ["production", "sim-production"],
    ["production@gpt-oss-120b", "sim-production-gpt-oss-120b"],
    ["eu.west@Qwen/Qwen3-Coder:30B", "sim-eu-west-qwen-qwen3-coder-30b"],
    [`c@${"m".repeat(100)}`, `sim-c-${"m".repeat(58)}`],
  ])("names the target of %s %s", (scope, id) => {
    expect(simTargetId(scope)).toBe(id);
  });
});
