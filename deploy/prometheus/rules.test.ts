import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The alerting rules over Switchyard's own /metrics, checked and unit-tested by Prometheus's promtool (Debian's
// `prometheus` package; .ci/run installs it). Without promtool the suite is skipped with that reason, except in CI.

const dir = path.dirname(new URL(import.meta.url).pathname);
const promtool = spawnSync("promtool", ["--version"], { encoding: "utf8" }).status === 0;
const required = process.env.CI === "true";
if (!promtool && !required)
  console.log("deploy/prometheus: promtool not found (apt-get install prometheus): rules tests skipped");

function run(...args: string[]) {
  const r = spawnSync("promtool", args, { cwd: dir, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe.skipIf(!promtool && !required)("deploy/prometheus/switchyard.rules.yml", () => {
  it("is valid for Prometheus (promtool check rules)", () => {
    const r = run("check", "rules", "switchyard.rules.yml");
    expect(r.out).toContain("SUCCESS: 8 rules found");
    expect(r.status).toBe(0);
  });

  it("fires and stays quiet as its tests say (promtool test rules)", () => {
    const r = run("test", "rules", "switchyard.rules.test.yml");
    expect(r.out).toContain("SUCCESS");
    expect(r.status).toBe(0);
  });
});
