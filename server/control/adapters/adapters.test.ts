import fs from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listStatuses } from "../../../db/store/control";
import { sqliteStore } from "../../../db/store/store";
import { publishVersion, upsertTarget } from "../store";
import { testDb } from "../../../test/db";
import { createControlServer } from "../../sim/control-api";
import { SimController } from "../../sim/controller";
import { makeSim } from "../../sim/test-support";
import { defaultPolicies } from "../policies";
import { reconcileOnce } from "../reconciler";
import { busyThresholdAdapter, busyThresholdBody } from "./busy-threshold";
import { defaultAdapters } from "./index";
import { plannerFileAdapter } from "./planner-file";
import { simAdapter } from "./sim";

const TOKEN = "ctl-token";
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The real control API over a preamble simulation that keeps stepping (policy changes apply between steps). */
async function simTarget() {
  const { sim } = makeSim({ scenario: "preamble" });
  const controller = new SimController(sim);
  const url = await listen(createControlServer({ target: controller, token: TOKEN }));
  const pump = setInterval(() => controller.advance(sim.now + 100), 5);
  cleanup.push(() => clearInterval(pump));
  return { sim, url };
}

/** A closed port: connecting to it is refused. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  server.close();
  return url;
}

describe("sim adapter against the simulated cluster's control API", () => {
  it("applies a valid document at its version", async () => {
    const { sim, url } = await simTarget();
    const res = await simAdapter({ url, token: TOKEN }).push("routing", 4, {
      ...defaultPolicies().routing,
      temperature: 0.25,
    });
    expect(res).toEqual({ status: "applied" });
    expect(sim.policies().routing).toMatchObject({ version: 4, document: { temperature: 0.25 } });
  });

  it("returns the target's field errors on a refused document and keeps the previous version", async () => {
    const { sim, url } = await simTarget();
    const res = await simAdapter({ url, token: TOKEN }).push("autoscaling", 2, {
      decode: { kv_scale_up: 0.3, kv_scale_down: 0.6 },
    });
    expect(res).toMatchObject({ status: "rejected", errors: [{ path: "decode.kv_scale_down" }] });
    expect(sim.policies().autoscaling.version).toBe(0);
  });

  it("throws on a wrong token and when nothing listens", async () => {
    const { url } = await simTarget();
    await expect(simAdapter({ url, token: "wrong" }).push("routing", 1, {})).rejects.toThrow(/HTTP 401/);
    await expect(simAdapter({ url: await deadUrl(), token: TOKEN }).push("routing", 1, {})).rejects.toThrow();
  });

  it("brings the simulated cluster in sync through the reconciler", async () => {
    const { sim, url } = await simTarget();
    const db = sqliteStore(testDb());
    await upsertTarget(
      db,
      {
        id: "sim",
        name: "Sim",
        adapter: "sim",
        config: { url, token: TOKEN },
        kinds: ["frontend", "routing"],
        enabled: true,
      },
      "t",
      0,
    );
    await publishVersion(db, {
      kind: "frontend",
      document: { strip_anthropic_preamble: true },
      baseVersion: null,
      author: "a",
      comment: "",
      now: 0,
    });
    await reconcileOnce(db, defaultAdapters(), 1_000);
    expect(sim.policies().frontend).toMatchObject({ version: 1, document: { strip_anthropic_preamble: true } });
    expect(await listStatuses(db)).toMatchObject([
      { targetId: "sim", kind: "frontend", state: "in_sync", appliedVersion: 1 },
    ]);
  });
});

describe("busy-threshold adapter against a /busy_threshold server", () => {
  async function frontend(reply: (body: unknown) => [number, unknown]) {
    const received: { method?: string; url?: string; body: unknown }[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString("utf8")));
      req.on("end", () => {
        const body = JSON.parse(text) as unknown;
        received.push({ method: req.method, url: req.url, body });
        const [status, json] = reply(body);
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
      });
    });
    return { url: await listen(server), received };
  }
  const routing = {
    busy: {
      active_decode_blocks_threshold: 0.85,
      active_prefill_tokens_threshold: 20_000,
      active_prefill_tokens_threshold_frac: null,
    },
  };

  it("posts the model and the routing policy's busy thresholds", async () => {
    const fe = await frontend((body) => [200, body]);
    expect(await busyThresholdAdapter({ url: `${fe.url}/`, model: "qwen" }).push("routing", 3, routing)).toEqual({
      status: "applied",
    });
    expect(fe.received).toEqual([
      {
        method: "POST",
        url: "/busy_threshold",
        body: {
          model: "qwen",
          active_decode_blocks_threshold: 0.85,
          active_prefill_tokens_threshold: 20_000,
          active_prefill_tokens_threshold_frac: null,
        },
      },
    ]);
  });

  it("treats a 4xx as the frontend's rejection and a 5xx or no answer as unreachable", async () => {
    const bad = await frontend(() => [404, { error: "model qwen not found" }]);
    expect(await busyThresholdAdapter({ url: bad.url, model: "qwen" }).push("routing", 1, routing)).toEqual({
      status: "rejected",
      message: "HTTP 404: model qwen not found",
    });
    const down = await frontend(() => [503, { message: "starting" }]);
    await expect(busyThresholdAdapter({ url: down.url, model: "m" }).push("routing", 1, routing)).rejects.toThrow(
      "HTTP 503 Service Unavailable",
    );
    await expect(
      busyThresholdAdapter({ url: await deadUrl(), model: "m" }).push("routing", 1, routing),
    ).rejects.toThrow();
  });

  it("refuses other policy kinds without calling the frontend", async () => {
    const fe = await frontend(() => [200, {}]);
    expect(await busyThresholdAdapter({ url: fe.url, model: "m" }).push("frontend", 1, {})).toMatchObject({
      status: "rejected",
    });
    expect(fe.received).toEqual([]);
    expect(busyThresholdBody("m", {})).toEqual({
      model: "m",
      active_decode_blocks_threshold: null,
      active_prefill_tokens_threshold: null,
      active_prefill_tokens_threshold_frac: null,
    });
  });
});

describe("planner-file adapter", () => {
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "planner-file-"));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  it("writes the autoscaling document as JSON, replacing the previous file and leaving no temp files", async () => {
    const dir = tempDir();
    const file = path.join(dir, "planner.json");
    const adapter = plannerFileAdapter({ path: file });
    const doc = defaultPolicies().autoscaling;
    expect(await adapter.push("autoscaling", 1, doc)).toEqual({ status: "applied" });
    expect(await adapter.push("autoscaling", 2, { ...doc, max_gpu_budget: 32 })).toEqual({ status: "applied" });
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ ...doc, max_gpu_budget: 32 });
    expect(fs.readdirSync(dir)).toEqual(["planner.json"]);
  });

  it("throws when the folder is missing and refuses other kinds", async () => {
    const dir = tempDir();
    await expect(
      plannerFileAdapter({ path: path.join(dir, "missing", "p.json") }).push("autoscaling", 1, {}),
    ).rejects.toThrow(/ENOENT/);
    expect(await plannerFileAdapter({ path: path.join(dir, "p.json") }).push("routing", 1, {})).toMatchObject({
      status: "rejected",
    });
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
