import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
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
  return runIn(dir, ...args);
}

function runIn(cwd: string, ...args: string[]) {
  const r = spawnSync("promtool", args, { cwd, encoding: "utf8", timeout: 60_000 });
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

  it("the example configuration that loads it is valid (promtool check config)", () => {
    // Checked where its token file exists, as an operator's copy would be.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-prom-"));
    try {
      for (const f of ["prometheus.example.yml", "switchyard.rules.yml"])
        fs.copyFileSync(path.join(dir, f), path.join(tmp, f));
      fs.writeFileSync(path.join(tmp, "switchyard-read-token"), "sy_example\n");
      const r = runIn(tmp, "check", "config", "prometheus.example.yml");
      expect(r.out).toContain("SUCCESS: 8 rules found");
      expect(r.status).toBe(0);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
