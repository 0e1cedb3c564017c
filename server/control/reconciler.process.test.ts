import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listStatuses } from "../../db/store/control";
import { sqliteStore } from "../../db/store/store";
import { publishVersion, upsertTarget } from "./publish";
import { testDb } from "../../test/db";
import { startSimProcess } from "../../test/sim-process";
import { defaultAdapters } from "./adapters";
import { defaultPolicies } from "../../lib/policies/policies";
import { reconcileOnce } from "./reconciler";

// The reconciler against the simulated cluster as its own OS process, over HTTP, as `npm start` runs it.

const TOKEN = "sim-control-token-0123456789";
const children: ChildProcess[] = [];
const outputs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  for (const f of outputs.splice(0)) fs.rmSync(f, { force: true });
});

/** The simulator with a control API on a free port; resolves to its base URL. */
function startSim(): Promise<string> {
  const out = path.join(os.tmpdir(), `switchyard-reconcile-${process.pid}-${Date.now()}.ndjson`);
  outputs.push(out);
  const { child, controlUrl } = startSimProcess(["--scenario", "preamble", "--out", out], TOKEN);
  children.push(child);
  return controlUrl;
}

async function policies(url: string) {
  const res = await fetch(`${url}/control/policies`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return (await res.json()) as Record<string, { version: number; document: Record<string, unknown> }>;
}

describe("reconciler against the simulated cluster process", () => {
  it("applies each kind, records a refusal by field, and re-pushes everything to a restarted process", async () => {
    const db = sqliteStore(testDb());
    let url = await startSim();
    await upsertTarget(
      db,
      {
        id: "sim",
        name: "Sim",
        cluster: "default",
        adapter: "sim",
        config: { url, token: TOKEN },
        kinds: ["frontend", "autoscaling"],
        enabled: true,
      },
      "t",
      0,
    );
    await publishVersion(db, {
      cluster: "default",
      kind: "frontend",
      document: { strip_anthropic_preamble: true },
      baseVersion: null,
      author: "a",
      comment: "",
      now: 0,
    });
    await publishVersion(db, {
      cluster: "default",
      kind: "autoscaling",
      document: defaultPolicies().autoscaling,
      baseVersion: null,
      author: "a",
      comment: "",
      now: 0,
    });
    await reconcileOnce(db, defaultAdapters(), 1_000);
    expect((await listStatuses(db)).map((s) => [s.kind, s.state, s.appliedVersion]).sort()).toEqual([
      ["autoscaling", "in_sync", 1],
      ["frontend", "in_sync", 1],
    ]);
    expect((await policies(url)).frontend).toMatchObject({ version: 1, document: { strip_anthropic_preamble: true } });

    // A real refusal with a field reason: another controller put a newer version on the sim, so ours is older.
    await fetch(`${url}/control/policies/frontend`, {
      method: "PUT",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ version: 7, document: { strip_anthropic_preamble: false } }),
    });
    await publishVersion(db, {
      cluster: "default",
      kind: "frontend",
      document: { strip_anthropic_preamble: true, tool_output_budget: { unit: "bytes", limit: 2000 } },
      baseVersion: 1,
      author: "a",
      comment: "",
      now: 2_000,
    });
    await reconcileOnce(db, defaultAdapters(), 3_000);
    const refused = (await listStatuses(db)).find((s) => s.kind === "frontend")!;
    expect(refused).toMatchObject({ state: "rejected", desiredVersion: 2, appliedVersion: 1 });
    expect(refused.message).toMatch(/refused/);
    expect(JSON.parse(refused.errors ?? "[]")).toEqual([expect.objectContaining({ path: "version" })]);

    // A new process at a new address (npm start restarted the sim): every kind is pushed again.
    for (const c of children.splice(0)) c.kill("SIGKILL");
    url = await startSim();
    await upsertTarget(
      db,
      {
        id: "sim",
        name: "Sim",
        cluster: "default",
        adapter: "sim",
        config: { url, token: TOKEN },
        kinds: ["frontend", "autoscaling"],
        enabled: true,
      },
      "t",
      4_000,
    );
    await reconcileOnce(db, defaultAdapters(), 5_000);
    const now = await policies(url);
    expect(now.frontend).toMatchObject({ version: 2, document: { strip_anthropic_preamble: true } });
    expect(now.autoscaling).toMatchObject({ version: 1 });
  }, 30_000);
});
