import fs from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listStatuses } from "../../../db/store/control";
import { sqliteStore } from "../../../db/store/store";
import { publishVersion, upsertTarget } from "../publish";
import { testDb } from "../../../test/db";
import { createControlServer } from "../../sim/control-api";
import { SimController } from "../../sim/controller";
import { makeSim } from "../../sim/test-support";
import { defaultPolicies } from "../../../lib/policies/policies";
import { reconcileOnce } from "../reconciler";
import { busyThresholdAdapter, busyThresholdBody } from "./busy-threshold";
import { defaultAdapters } from "./index";
import { plannerFileAdapter } from "./planner-file";
import { useTempFolders } from "../../files/test-support";
import { simAdapter } from "./sim";

const TOKEN = "ctl-token";
// Set before the settings are first read: defaultAdapters() writes planner files inside folders.targets.
const folders = useTempFolders();
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

  it("sends a model scope's model: applied to that model's line, refused (no retry) for a model not served", async () => {
    const { sim, url } = await simTarget();
    const doc = { ...defaultPolicies().routing, temperature: 0.5 };
    expect(await simAdapter({ url, token: TOKEN }, sim.model).push("routing", 1, doc)).toEqual({ status: "applied" });
    expect(sim.policies(sim.model).routing).toMatchObject({ version: 1, document: { temperature: 0.5 } });
    expect(sim.policies().routing.version).toBe(0);
    const other = await simAdapter({ url, token: TOKEN }, "not-served").push("routing", 2, doc);
    expect(other).toMatchObject({ status: "rejected", errors: [{ path: "model" }] });
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
        cluster: "default",
        adapter: "sim",
        config: { url, token: TOKEN },
        kinds: ["frontend", "routing"],
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
  const setup = () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "planner-file-")));
    cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
    const [base, outside] = [path.join(root, "targets"), path.join(root, "outside")];
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, "victim"), "victim\n");
    const folder = { folder: base, field: "config.path", setting: "SWITCHYARD_TARGET_DIR" };
    return { root, base, outside, folder };
  };
  const untouched = (outside: string) => {
    expect(fs.readdirSync(outside)).toEqual(["victim"]);
    expect(fs.readFileSync(path.join(outside, "victim"), "utf8")).toBe("victim\n");
  };

  it("writes the autoscaling document as JSON inside the folder, replacing the previous file, no temp files", async () => {
    const { base, folder } = setup();
    const adapter = plannerFileAdapter({ path: "team/planner.json" }, folder);
    const doc = defaultPolicies().autoscaling;
    expect(await adapter.push("autoscaling", 1, doc)).toEqual({ status: "applied" });
    expect(await adapter.push("autoscaling", 2, { ...doc, max_gpu_budget: 32 })).toEqual({ status: "applied" });
    expect(JSON.parse(fs.readFileSync(path.join(base, "team", "planner.json"), "utf8"))).toEqual({
      ...doc,
      max_gpu_budget: 32,
    });
    expect(fs.readdirSync(path.join(base, "team"))).toEqual(["planner.json"]);
  });

  it("refuses other kinds, writing nothing", async () => {
    const { base, folder } = setup();
    expect(await plannerFileAdapter({ path: "p.json" }, folder).push("routing", 1, {})).toMatchObject({
      status: "rejected",
    });
    expect(fs.existsSync(path.join(base, "p.json"))).toBe(false);
  });

  it.each([
    [
      "a symlink planted at the file's name",
      "planner.json",
      (b: string, o: string) => [path.join(o, "victim"), path.join(b, "planner.json")],
    ],
    ["a symlink planted for a folder on the way", "team/victim", (b: string, o: string) => [o, path.join(b, "team")]],
  ])("rejects a push through %s by its rule and writes nothing outside", async (_, name, link) => {
    const { base, outside, folder } = setup();
    fs.mkdirSync(base);
    const [to, at] = link(base, outside);
    fs.symlinkSync(to!, at!);
    expect(await plannerFileAdapter({ path: name }, folder).push("autoscaling", 1, { x: 1 })).toEqual({
      status: "rejected",
      message:
        "config.path: must be a relative file name inside SWITCHYARD_TARGET_DIR (no symbolic link at any part of the path)",
    });
    untouched(outside);
    expect(fs.readdirSync(base)).toEqual([path.basename(at!)]);
  });

  it("rejects a path stored by an earlier version outside the folder, by its rule, without touching the disk", async () => {
    const { root, outside, folder } = setup();
    for (const stored of [path.join(outside, "victim"), `${root}/targets/../outside/victim`, "../outside/victim"])
      expect(await plannerFileAdapter({ path: stored }, folder).push("autoscaling", 1, {})).toMatchObject({
        status: "rejected",
        message: expect.stringMatching(/^config\.path: must be a relative file name inside SWITCHYARD_TARGET_DIR \(no/),
      });
    untouched(outside);
  });

  it("throws (retried) on a disk error, naming its code but no path", async () => {
    const { outside, folder } = setup();
    const blocked = { ...folder, folder: path.join(outside, "victim", "targets") };
    const err = await plannerFileAdapter({ path: "p.json" }, blocked)
      .push("autoscaling", 1, {})
      .catch((e: Error) => e);
    expect((err as Error).message).toBe("cannot write config.path inside SWITCHYARD_TARGET_DIR: ENOTDIR");
  });

  it("through the reconciler: a name inside SWITCHYARD_TARGET_DIR is written, an outside one stored earlier is rejected", async () => {
    const db = sqliteStore(testDb());
    const target = (id: string, p: string) => ({
      id,
      name: id,
      cluster: "default",
      adapter: "planner-file" as const,
      config: { path: p },
      kinds: ["autoscaling" as const],
      enabled: true,
    });
    await upsertTarget(db, target("inside", "planner.json"), "t", 0);
    await upsertTarget(db, target("outside", path.join(folders.outside, "victim")), "t", 0);
    fs.writeFileSync(path.join(folders.outside, "victim"), "victim\n");
    const doc = defaultPolicies().autoscaling;
    await publishVersion(db, {
      cluster: "default",
      kind: "autoscaling",
      document: doc,
      baseVersion: null,
      author: "a",
      comment: "",
      now: 0,
    });
    await reconcileOnce(db, defaultAdapters(), 1_000);
    expect(JSON.parse(fs.readFileSync(path.join(folders.targets, "planner.json"), "utf8"))).toEqual(doc);
    expect(fs.readFileSync(path.join(folders.outside, "victim"), "utf8")).toBe("victim\n");
    expect(await listStatuses(db)).toMatchObject([
      { targetId: "inside", kind: "autoscaling", state: "in_sync", appliedVersion: 1 },
      { targetId: "outside", kind: "autoscaling", state: "rejected" },
    ]);
  });
});
