import { describe, expect, it } from "vitest";
import { offloadTierErrors, parseTierConfig, parseTierFlag, presentTiers } from "./tiers";

describe("tier config", () => {
  it.each([
    [undefined, { host_blocks: 0, disk_blocks: 0, shared_blocks: 0 }],
    [{}, { host_blocks: 0, disk_blocks: 0, shared_blocks: 0 }],
    [
      { host_blocks: 4096, shared_blocks: 1 },
      { host_blocks: 4096, disk_blocks: 0, shared_blocks: 1 },
    ],
  ])("%j is accepted as %j", (value, tiers) => {
    expect(parseTierConfig(value)).toEqual({ ok: true, tiers });
  });

  it.each([
    [{ host_blocks: -1 }, "tiers.host_blocks"],
    [{ host_blocks: 0 }, "tiers.host_blocks"],
    [{ disk_blocks: 1.5 }, "tiers.disk_blocks"],
    [{ shared_blocks: "10" }, "tiers.shared_blocks"],
    [{ gpu_blocks: 10 }, "tiers.gpu_blocks"],
    [[1, 2], "tiers"],
  ])("%j is refused at %s", (value, path) => {
    const r = parseTierConfig(value);
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual([path]);
  });

  it("reads the command-line form and refuses a negative size there too", () => {
    expect(parseTierFlag("host=100,disk=5")).toEqual({
      ok: true,
      tiers: { host_blocks: 100, disk_blocks: 5, shared_blocks: 0 },
    });
    expect(parseTierFlag("host=-3")).toMatchObject({ ok: false, errors: [{ path: "tiers.host_blocks" }] });
    expect(presentTiers({ host_blocks: 100, disk_blocks: 0, shared_blocks: 7 })).toEqual(["host", "shared"]);
  });
});

describe("offload targets must exist in the cluster", () => {
  const doc = {
    rules: [
      { name: "a", offload: { to: "host" } },
      { name: "b" },
      { name: "c", offload: { to: "disk", ttl_seconds: 60 } },
    ],
  };

  it("names each rule whose target tier is missing, and only those", () => {
    expect(offloadTierErrors("retention", doc, { host_blocks: 10, disk_blocks: 0, shared_blocks: 0 })).toEqual([
      { path: "rules.2.offload.to", message: "this cluster has no disk tier (it has host)" },
    ]);
    expect(
      offloadTierErrors("retention", doc, { host_blocks: 0, disk_blocks: 0, shared_blocks: 0 }).map((e) => e.message),
    ).toEqual([
      "this cluster has no host tier (it has device memory only)",
      "this cluster has no disk tier (it has device memory only)",
    ]);
    expect(offloadTierErrors("retention", doc, { host_blocks: 1, disk_blocks: 1, shared_blocks: 0 })).toEqual([]);
  });

  it("leaves other kinds and invalid documents to the ordinary validation", () => {
    expect(offloadTierErrors("routing", doc, { host_blocks: 0, disk_blocks: 0, shared_blocks: 0 })).toEqual([]);
    expect(
      offloadTierErrors(
        "retention",
        { rules: [{ name: "a", offload: { to: "host" }, bogus: 1 }] },
        { host_blocks: 0, disk_blocks: 0, shared_blocks: 0 },
      ),
    ).toEqual([]);
  });
});
