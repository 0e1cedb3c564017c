import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listTargets } from "../../db/store/control";
import { SQLITE, type TwoStores } from "../../test/stores";
import { registerSimTargets } from "./sim-targets";

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
    await registerSimTargets(two.a, { ...sim, fleet: ["production", "staging"] }, 2);
    expect(await summary()).toEqual([
      { id: "sim", cluster: "default", enabled: false, url: sim.url },
      { id: "sim-production", cluster: "production", enabled: true, url: `${sim.url}/clusters/production` },
      { id: "sim-staging", cluster: "staging", enabled: true, url: `${sim.url}/clusters/staging` },
    ]);
    // Back to one cluster: `sim` is enabled again.
    await registerSimTargets(two.a, { ...sim, fleet: null }, 3);
    expect((await summary()).find((t) => t.id === "sim")?.enabled).toBe(true);
  });
});
