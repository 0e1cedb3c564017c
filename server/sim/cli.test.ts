import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs } from "./args";
import { main } from "./cli";
import { nodeArgs } from "../compiled";

const dir = mkdtempSync(join(tmpdir(), "switchyard-sim-"));
const START = "1764400000000";
const quiet = { log: () => {}, env: {} };

describe("parseArgs", () => {
  it.each([
    [
      ["--out", "x"],
      { out: "x", scenario: "steady", seed: 1, speed: 1, fast: false, fullChains: false, durationSeconds: null },
    ],
    [["--dashboard", "http://d", "--token", "t", "--full-chains"], { dashboard: "http://d", fullChains: true }],
    [
      ["--out=x", "--scenario=surge", "--seed", "9", "--fast", "--duration", "60", "--start", START],
      { scenario: "surge", seed: 9, fast: true, durationSeconds: 60, startMs: Number(START) },
    ],
    [
      ["--dashboard", "http://localhost:3000/", "--token", "t", "--speed", "10"],
      { dashboard: "http://localhost:3000", token: "t", speed: 10 },
    ],
    [
      ["--out", "x", "--control-port", "0", "--control-token", "c"],
      { controlPort: 0, controlToken: "c", controlHost: "127.0.0.1" },
    ],
    [["--out", "x"], { tiers: null, tierBandwidth: null }],
    [
      ["--out", "x", "--tier-bandwidth", "host=50,shared=0.5"],
      { tierBandwidth: { host: 50e9, disk: 5e9, shared: 0.5e9 } },
    ],
    [
      ["--out", "x", "--tiers", "host=4096,shared=100"],
      { tiers: { host_blocks: 4096, disk_blocks: 0, shared_blocks: 100 } },
    ],
  ])("accepts %j", (argv, expected) => {
    const r = parseArgs(argv);
    expect(r.ok && r.options).toMatchObject(expected);
  });

  it("takes tokens from the environment", () => {
    const r = parseArgs(["--dashboard", "http://d", "--control-port", "1"], {
      SWITCHYARD_INGEST_TOKEN: "i",
      SWITCHYARD_CONTROL_TOKEN: "c",
    });
    expect(r.ok && [r.options.token, r.options.controlToken]).toEqual(["i", "c"]);
  });

  it.each([
    [[], "nothing to do"],
    [["--out", "x", "--scenario", "chaos"], "unknown scenario"],
    [["--out", "x", "--speed", "0"], "--speed must be a positive number"],
    [["--out", "x", "--fast", "--speed", "2"], "not both"],
    [["--out", "x", "--fast"], "--fast without --duration"],
    [["--dashboard", "http://d"], "--dashboard needs --token"],
    [["--out", "x", "--control-port", "80"], "--control-port needs --control-token"],
    [["--out", "x", "--seed", "-1"], "--seed must be"],
    [["--out", "x", "--tiers", "host=-5"], "--tiers: tiers.host_blocks: must be a whole number"],
    [["--out", "x", "--tiers", "ssd=5"], "--tiers: tiers.ssd_blocks: unknown field"],
    [["--out", "x", "--tiers", "host=0"], "--tiers: tiers.host_blocks: must be a whole number of blocks between 1"],
    [["--out", "x", "--tier-bandwidth", "host=0"], "--tier-bandwidth: tier_bandwidth.host: must be GB/s above 0"],
    [["--out", "x", "--tier-bandwidth", "gpu=5"], "--tier-bandwidth: tier_bandwidth.gpu: unknown tier"],
    [["--out", "x", "--start", "17644"], "--start must be Unix milliseconds"],
    [["--out", "x", "--bogus"], "unknown option --bogus"],
    [["--out"], "--out needs a value"],
  ])("refuses %j", (argv, message) => {
    const r = parseArgs(argv);
    expect(r.ok ? "" : r.error).toContain(message);
  });
});

describe("sim CLI", () => {
  const run = (name: string, extra: string[] = []) => {
    const out = join(dir, name);
    return main(
      [
        "--scenario",
        "preamble",
        "--seed",
        "5",
        "--fast",
        "--duration",
        "120",
        "--start",
        START,
        "--out",
        out,
        ...extra,
      ],
      quiet,
    ).then((code) => ({ code, text: readFileSync(out, "utf8") }));
  };

  it("writes a byte-identical NDJSON file for the same seed, scenario, policies, duration and start", async () => {
    const a = await run("a.ndjson");
    const b = await run("b.ndjson");
    expect(a.code).toBe(0);
    expect(a.text.length).toBeGreaterThan(100_000);
    expect(b.text).toBe(a.text);
    const lines = a.text.trimEnd().split("\n");
    expect(lines.every((l) => JSON.parse(l).ts >= Number(START))).toBe(true);
    expect(JSON.parse(lines.at(-1)!).ts).toBeLessThanOrEqual(Number(START) + 120_000);
  });

  it("applies a --policies file at start", async () => {
    const file = join(dir, "policies.json");
    writeFileSync(
      file,
      JSON.stringify({ routing: { temperature: 0.25 }, frontend: { strip_anthropic_preamble: true } }),
    );
    const { code, text } = await run("p.ndjson", ["--policies", file]);
    expect(code).toBe(0);
    const events = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string; temperature?: number });
    const decisions = events.filter((e) => e.kind === "route.decision");
    expect(decisions.length).toBeGreaterThan(0);
    expect(decisions.every((d) => d.temperature === 0.25)).toBe(true);
  });

  it("exits 1 with the error for an invalid --policies file", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ autoscaling: { decode: { kv_scale_down: 0.99 } } }));
    const logs: string[] = [];
    const code = await main(["--fast", "--duration", "10", "--out", join(dir, "x.ndjson"), "--policies", file], {
      log: (l) => logs.push(l),
      env: {},
    });
    expect(code).toBe(1);
    expect(logs.join("\n")).toContain(
      "invalid autoscaling policy: decode.kv_scale_down: must be below the scale-up threshold (0.9)",
    );
    writeFileSync(file, JSON.stringify({ planner: {} }));
    expect(await main(["--fast", "--duration", "10", "--out", join(dir, "x.ndjson"), "--policies", file], quiet)).toBe(
      1,
    );
  });

  it("refuses a --policies retention document offloading to a tier the cluster lacks (--tiers)", async () => {
    const file = join(dir, "offload.json");
    writeFileSync(
      file,
      JSON.stringify({ retention: { rules: [{ name: "conv", offload: { to: "host", ttl_seconds: 60 } }] } }),
    );
    const logs: string[] = [];
    const code = await main(["--fast", "--duration", "10", "--out", join(dir, "x.ndjson"), "--policies", file], {
      log: (l) => logs.push(l),
      env: {},
    });
    expect(code).toBe(1);
    expect(logs.join("\n")).toContain(
      "invalid retention policy: rules.0.offload.to: this cluster has no host tier (it has device memory only)",
    );
    expect(
      await main(
        ["--fast", "--duration", "10", "--out", join(dir, "x.ndjson"), "--policies", file, "--tiers", "host=1024"],
        quiet,
      ),
    ).toBe(0);
  });

  it("exits 2 with usage for bad arguments", async () => {
    const logs: string[] = [];
    expect(await main(["--speed", "fast"], { log: (l) => logs.push(l), env: {} })).toBe(2);
    expect(logs[0]).toContain("usage: npm run sim");
  });

  /** Run with --dashboard against a fake ingest endpoint; the posted lines and the --out file's text. */
  async function postTo(extra: string[]): Promise<{ code: number; text: string; received: string[] }> {
    const received: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        if (req.headers.authorization === "Bearer ingest") received.push(...body.split("\n").filter(Boolean));
        res.writeHead(req.headers.authorization === "Bearer ingest" ? 200 : 401, {
          "content-type": "application/json",
        });
        res.end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { code, text } = await run("d.ndjson", ["--dashboard", url, "--token", "ingest", ...extra]);
    server.close();
    return { code, text, received };
  }

  it("with --full-chains posts the same events it writes to a dashboard", async () => {
    const { code, text, received } = await postTo(["--full-chains"]);
    expect(code).toBe(0);
    expect(received.join("\n") + "\n").toBe(text);
  });

  it("by default writes and posts the same events with requests in compact form (prefix_of)", async () => {
    const { code, text, received } = await postTo([]);
    expect(code).toBe(0);
    expect(received.join("\n") + "\n").toBe(text);
    const full = await run("full.ndjson", ["--full-chains"]);
    const written = full.text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const posted = received.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(posted.map((e) => e.id)).toEqual(written.map((e) => e.id));
    const byId = new Map(written.filter((e) => e.kind === "request").map((e) => [e.request_id, e]));
    let compact = 0;
    posted.forEach((e, i) => {
      const w = written[i]!;
      if (!e.prefix_of) return expect(e).toEqual(w);
      compact++;
      const { request_id, blocks } = e.prefix_of as { request_id: string; blocks: number };
      const named = byId.get(request_id)!;
      expect(named.trajectory_id).toBe(w.trajectory_id);
      for (const key of ["sequence_hashes", "local_hashes"] as const) {
        expect([...(named[key] as string[]).slice(0, blocks), ...(e[key] as string[])]).toEqual(w[key]);
      }
      const { prefix_of: _, sequence_hashes: _s, local_hashes: _l, ...rest } = e;
      const { sequence_hashes: _ws, local_hashes: _wl, ...wrest } = w;
      expect(rest).toEqual(wrest);
    });
    expect(compact).toBeGreaterThan(0);
  });

  it("runs a fleet: each line names its cluster, production serves two models, staging one", async () => {
    const out = join(dir, "fleet.ndjson");
    expect(
      await main(["--scenario", "fleet", "--fast", "--duration", "60", "--start", START, "--out", out], quiet),
    ).toBe(0);
    const events = readFileSync(out, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { cluster?: string; kind: string; model?: string });
    expect(events.every((e) => e.cluster === "production" || e.cluster === "staging")).toBe(true);
    const models = (c: string) =>
      [...new Set(events.filter((e) => e.cluster === c && e.kind === "request").map((e) => e.model))].sort();
    expect(models("production")).toEqual(["gpt-oss-120b", "qwen3-coder-480b-a35b"]);
    expect(models("staging")).toEqual(["qwen3-coder-480b-a35b"]);
  });

  it.each([
    ["steady", ["/control/policies"]],
    ["fleet", ["/clusters/production/control/policies", "/clusters/staging/control/policies"]],
  ])(
    "serves the control API of a %s run where it says",
    async (scenario, paths) => {
      const lines: string[] = [];
      const stop = new AbortController();
      const urls = new Promise<string[]>((resolve) => {
        const found: string[] = [];
        const log = (l: string) => {
          lines.push(l);
          const m = /control API on (http:\/\/\S+)/.exec(l);
          if (m) found.push(m[1]!);
          if (found.length === paths.length) resolve(found);
        };
        void main(
          [
            "--scenario",
            scenario,
            "--speed",
            "1",
            "--duration",
            "5",
            "--out",
            join(dir, `ctl-${scenario}.ndjson`),
            "--control-port",
            "0",
            "--control-token",
            "cli-test-control-token",
          ],
          { log },
        ).finally(() => stop.abort());
      });
      const found = await urls;
      expect(found.map((u) => new URL(u).pathname)).toEqual(paths);
      for (const u of found) {
        const res = await fetch(u, { headers: { authorization: "Bearer cli-test-control-token" } });
        expect(res.status).toBe(200);
        expect(Object.keys((await res.json()) as object).sort()).toEqual([
          "autoscaling",
          "frontend",
          "retention",
          "routing",
        ]);
      }
      await new Promise<void>((resolve) =>
        stop.signal.aborted ? resolve() : stop.signal.addEventListener("abort", () => resolve()),
      );
    },
    30_000,
  );

  it.each([
    [["--workload", "t.jsonl"], "--workload cannot be used with --scenario fleet"],
    [["--tiers", "host=100", "--policies", "p.json"], "--policies, --tiers cannot be used with --scenario fleet"],
  ])("refuses a fleet with %j", async (extra, message) => {
    const lines: string[] = [];
    const code = await main(
      ["--scenario", "fleet", "--fast", "--duration", "10", "--out", join(dir, "no.ndjson"), ...extra],
      {
        log: (l) => lines.push(l),
      },
    );
    expect(code).toBe(2);
    expect(lines.join("\n")).toContain(message);
  });

  it("runs live at a speed factor and stops at the duration", async () => {
    const out = join(dir, "live.ndjson");
    const t0 = Date.now();
    expect(
      await main(
        ["--scenario", "pressure", "--speed", "200", "--duration", "30", "--start", START, "--out", out],
        quiet,
      ),
    ).toBe(0);
    const wall = Date.now() - t0;
    expect(wall).toBeGreaterThanOrEqual(140);
    expect(wall).toBeLessThan(5_000);
    const stats = readFileSync(out, "utf8")
      .trimEnd()
      .split("\n")
      .filter((l) => l.includes('"worker.stats"'));
    expect(stats.length).toBe(2 * 30);
  });

  it("runs as the compiled script", async () => {
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, [...nodeArgs("sim"), "--help"], (err, _stdout, stderr) =>
        resolve({ code: err ? (err.code as number) : 0, stderr }),
      );
    });
    expect(code).toBe(0);
    expect(stderr).toContain("--control-port P");
  });
});
