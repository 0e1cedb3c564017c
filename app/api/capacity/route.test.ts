import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/sqlite/client";
import { insertUser } from "@/db/store/accounts";
import { insertEvents } from "@/db/sqlite/ingest";
import { sqliteStore } from "@/db/store/store";
import { SESSION_COOKIE } from "@/server/auth/constants";
import { startSession } from "@/server/auth/sign-in-sessions";
import { parseEvent, type TelemetryEvent } from "@/server/ingest/events";
import { setPreviewRunner } from "@/server/preview/runners";
import { threadRunner } from "@/server/preview/thread-runner";
import { Simulation } from "@/server/sim/engine";
import { toJsonLine } from "@/server/sim/json-lines";
import { scenarioByName } from "@/server/sim/scenarios";
import { useTempServerEnv } from "@/test/server-env";

// GET /api/capacity and /api/capacity/replay over eight minutes of the steady scenario, as the dashboard serves them:
// the job runs on a preview thread reading the SQLite file.

const TOKEN = "sy_test_token_capacity_0123456789ab";
const ORIGIN = "http://localhost:3000";
const NOW = Date.now();
/** The recording: 5 minutes of warm-up, then the 3-minute window the tests ask about. */
const START = Math.floor(NOW / 60_000) * 60_000 - 20 * 60_000;
const FROM = START + 5 * 60_000;
const TO = FROM + 3 * 60_000;

let restore: () => Promise<void>;
let curvesGet: typeof import("./route").GET;
let replayGet: typeof import("./replay/route").GET;
let db: Db;
let cookie: string;

beforeAll(async () => {
  let file: string;
  ({ restore, file } = await useTempServerEnv("switchyard-capacity-route-", TOKEN));
  setPreviewRunner(threadRunner(file));
  ({ GET: curvesGet } = await import("./route"));
  ({ GET: replayGet } = await import("./replay/route"));
  db = (await import("@/server/runtime")).serverEngine().db!;
  const sim = new Simulation({ scenario: scenarioByName("steady")!, seed: 2, startMs: START });
  const batch: TelemetryEvent[] = [];
  sim.setSink((e) => {
    const p = parseEvent(JSON.parse(toJsonLine(e)));
    if (p.ok) batch.push(p.event);
  });
  sim.runUntil(TO + 60_000);
  insertEvents(db, batch);
  const s = sqliteStore(db);
  const id = await insertUser(s, { username: "viewer-capacity", role: "viewer", passwordHash: null }, Date.now());
  cookie = `${SESSION_COOKIE}=${(await startSession(s, id, Date.now(), 600_000)).value}`;
}, 120_000);

afterAll(async () => {
  setPreviewRunner(undefined);
  db?.$client.close();
  await restore();
});

const get = (route: typeof curvesGet, path: string, query: string, headers: Record<string, string> = { cookie }) =>
  route(new Request(`${ORIGIN}${path}?${query}`, { headers }));
const curves = (query: string, headers?: Record<string, string>) => get(curvesGet, "/api/capacity", query, headers);
const window = `from=${FROM}&to=${TO}`;

type Point = {
  blocks: number;
  tokens: number;
  gigabytes: number;
  hit_rate: number;
  hit_tokens: number;
  total_blocks?: number;
};
type Body = {
  block_size: number;
  today_blocks: number;
  bytes_per_token: number;
  kv_source: string;
  curves: { scope: string; points: Point[] }[];
  per_worker: { points: Point[] };
  answer: { per_worker: { size: Point | null; more_than_today: Point | null } } | null;
  tiers: {
    cells: { deviceBlocks: number; tierBlocks: number; device: number; tier: number; recomputed: number }[];
  } | null;
  empty: string | null;
  deleted: string[];
};

describe("GET /api/capacity", () => {
  it("answers the window's curves: shared, then one per worker, with today's capacity, the model's bytes and the tier grid", async () => {
    const res = await curves(`${window}&target=0.5`);
    expect(res.status).toBe(200);
    const b = (await res.json()) as Body;
    expect(b.empty).toBeNull();
    expect(b.block_size).toBe(64);
    expect(b.today_blocks).toBeGreaterThan(0);
    expect(b.kv_source).toContain("qwen3-coder-480b-a35b: 62 layers");
    expect(b.curves[0]!.scope).toBe("shared");
    const workers = b.curves.slice(1).map((c) => c.scope);
    expect(workers.length).toBe(8);
    for (const s of workers) expect(s).toMatch(/^worker:/);
    const pts = b.per_worker.points;
    expect(pts.at(-1)!.blocks).toBeGreaterThanOrEqual(4 * b.today_blocks);
    expect(pts.every((p, i) => i === 0 || p.hit_rate >= pts[i - 1]!.hit_rate)).toBe(true);
    expect(pts.at(-1)!.hit_rate).toBeGreaterThan(0.2);
    expect(b.answer?.per_worker.size?.hit_rate).toBeGreaterThanOrEqual(0.5);
    const cell = b.tiers!.cells.find((c) => c.deviceBlocks === b.today_blocks && c.tierBlocks === 0)!;
    expect(cell.device + cell.tier + cell.recomputed).toBeCloseTo(1, 9);
    expect(b.deleted).toEqual([]);
  });

  it("answers exactly the capacities asked, and the same as CSV", async () => {
    const b = (await (await curves(`${window}&capacities=0,500,2000`)).json()) as Body;
    expect(b.per_worker.points.map((p) => p.blocks)).toEqual([0, 500, 2000]);
    for (const c of b.curves.slice(1)) expect(c.points.map((p) => p.blocks)).toEqual([0, 500, 2000]);
    expect(b.curves[0]!.points.map((p) => [p.blocks, p.total_blocks])).toEqual([
      [0, 0],
      [500, 4000],
      [2000, 16000],
    ]);
    const csv = await curves(`${window}&capacities=0,500,2000&format=csv`);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]).toBe("scope,blocks,tokens,gigabytes,hit_rate,hit_tokens");
    expect(lines.length).toBe(1 + 3 * (1 + 1 + 8));
    expect(lines[2]).toBe(
      `per_worker,500,${500 * 64},${b.per_worker.points[1]!.gigabytes},${b.per_worker.points[1]!.hit_rate},${b.per_worker.points[1]!.hit_tokens}`,
    );
  });

  it("says a window without requests holds none instead of drawing a flat line", async () => {
    const b = (await (await curves(`from=${TO + 3_600_000}&to=${TO + 7_200_000}`)).json()) as Body;
    expect(b.empty).toBe("no recorded requests in the window");
  });

  it("says which part retention already deleted, and refuses a window it deleted whole", async () => {
    const old = NOW - 40 * 86_400_000;
    const gone = await curves(`from=${old}&to=${old + 3_600_000}`);
    expect(gone.status).toBe(422);
    expect(((await gone.json()) as { error: string }).error).toMatch(
      /requests older than 30 days .* were already deleted/,
    );
  });

  it.each([
    ["from after to", `from=${TO}&to=${FROM}`, "to"],
    ["a window over 24 h", `from=${TO - 90_000_000}&to=${TO}`, "from"],
    ["a bad capacity", `${window}&capacities=10,abc`, "capacities"],
    ["too many capacities", `${window}&capacities=${Array.from({ length: 65 }, (_, i) => i).join(",")}`, "capacities"],
    ["a target over 1", `${window}&target=80`, "target"],
    ["a zero target", `${window}&target=0`, "target"],
    ["a bad cluster name", `${window}&cluster=../etc`, "cluster"],
    ["an unknown role", `${window}&role=router`, "role"],
    ["a misspelt parameter", `${window}&capacity=100`, "capacity"],
    ["a parameter twice", `${window}&target=0.5&target=0.6`, "target"],
    ["bytes per token not whole", `${window}&bytes_per_token=1.5`, "bytes_per_token"],
    ["a tier bandwidth of 0", `${window}&tier_gbps=0`, "tier_gbps"],
    ["an unknown format", `${window}&format=xml`, "format"],
  ])("refuses %s (400 naming the parameter)", async (_, query, param) => {
    const res = await curves(query);
    expect(res.status).toBe(400);
    const j = (await res.json()) as { error: string; errors: { path: string }[] };
    expect(j.errors.map((e) => e.path)).toEqual([param]);
    expect(j.error.startsWith(param)).toBe(true);
  });

  it("names a model no worker serves (404) and needs the read scope", async () => {
    const res = await curves(`${window}&model=gpt-oss-120b`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toContain("found: qwen3-coder-480b-a35b");
    expect((await curves(window, {})).status).toBe(401);
  });
});

describe("GET /api/capacity/replay", () => {
  it("replays the window at each capacity asked with the recorded policies", async () => {
    const res = await get(replayGet, "/api/capacity/replay", `${window}&capacities=500,4000`);
    expect(res.status).toBe(200);
    const b = (await res.json()) as {
      measured_hit_rate: number;
      points: { blocks: number; hit_rate: number; prompt_tokens: number }[];
      notes: string[];
    };
    expect(b.points.map((p) => p.blocks)).toEqual([500, 4000]);
    expect(b.points[0]!.prompt_tokens).toBeGreaterThan(0);
    // Eight times the KV serves more of the prompts.
    expect(b.points[1]!.hit_rate).toBeGreaterThan(b.points[0]!.hit_rate);
    expect(b.measured_hit_rate).toBeGreaterThan(0);
    expect(b.notes.join(" ")).toContain("routes every turn again");
  }, 60_000);

  it.each([
    ["no capacities", window, "capacities"],
    ["five capacities", `${window}&capacities=1,2,3,4,5`, "capacities"],
    ["a capacity of 0", `${window}&capacities=0,100`, "capacities"],
  ])("refuses %s (400)", async (_, query, param) => {
    const res = await get(replayGet, "/api/capacity/replay", query);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe(param);
  });
});
