import { describe, expect, it } from "vitest";
import { newTargetValues, targetToValues, validateTarget } from "./target-form-model";

describe("target form model", () => {
  const filled = () => ({
    ...newTargetValues("sim"),
    id: "staging-sim",
    name: "Staging",
    fields: { url: "http://127.0.0.1:9/control", token: "t" },
  });

  it("a new target belongs to the default cluster; a cluster typed in is kept, trimmed", () => {
    expect(validateTarget(filled())).toMatchObject({ ok: true, input: { cluster: "default" } });
    expect(validateTarget({ ...filled(), cluster: " staging " })).toMatchObject({
      ok: true,
      input: { id: "staging-sim", cluster: "staging" },
    });
  });

  it.each([
    ["", "must be 1 to 64 letters"],
    ["prod eu", "must be 1 to 64 letters"],
    ["-prod", "must be 1 to 64 letters"],
    ["x".repeat(65), "must be 1 to 64 letters"],
  ])("cluster %j is refused on its field: %s", (cluster, message) => {
    const r = validateTarget({ ...filled(), cluster });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.cluster).toContain(message);
  });

  it("an edited target's form starts from its stored cluster", () => {
    const v = targetToValues({
      id: "p",
      name: "P",
      cluster: "prod",
      adapter: "sim",
      enabled: true,
      kinds: ["routing"],
      config: { url: "http://x", token: "••••" },
    });
    expect(v).toMatchObject({ cluster: "prod", fields: { url: "http://x", token: "••••" } });
  });
});
