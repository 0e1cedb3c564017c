import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { defaultPolicies } from "../../lib/policies/policies";
import { parseEvent } from "../ingest/events";
import { createControlServer } from "./control-api";
import { SimController } from "./controller";
import { Simulation } from "./engine";
import { ClusterTarget, FLEET, FleetController, fleetClusters, stampCluster } from "./fleet";
import { FLEET_CLUSTERS, FLEET_SCOPES, fleetControlPath } from "./fleet-names";
import { toJsonLine } from "./json-lines";
import type { TelemetryEventInput } from "../ingest/events";

const T0 = 1_764_000_000_000;
const TOKEN = "fleet-control-token";

/** The fleet's members as simulations (seed i + 1 each, as the simulator runs them), with every event they emit. */
function fleet() {
  return FLEET.map((m, i) => {
    const sim = new Simulation({ scenario: m.scenario, seed: 1 + i, startMs: T0 });
    const events: TelemetryEventInput[] = [];
    sim.setSink((e) => events.push(e));
    return { cluster: m.cluster, sim, events, controller: new SimController(sim) };
  });
}

const servers: { close: () => void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe("the simulated fleet", () => {
  it("has the clusters npm start registers targets for; production serves two models of different shapes", () => {
    expect(fleetClusters()).toEqual([...FLEET_CLUSTERS]);
    const prod = FLEET.filter((m) => m.cluster === "production").map((m) => m.scenario);
    expect(new Set(prod.map((s) => s.model)).size).toBe(2);
    expect(new Set(prod.map((s) => s.blockSize)).size).toBe(2);
    expect(new Set(prod.map((s) => s.kvBlocks.aggregated)).size).toBe(2);
    // A scope per cluster, and one per model of a cluster serving two.
    const scopes = fleetClusters().flatMap((c) => {
      const models = [...new Set(FLEET.filter((m) => m.cluster === c).map((m) => m.scenario.model))].sort();
      return [c, ...(models.length > 1 ? models.map((m) => `${c}@${m}`) : [])];
    });
    expect([...FLEET_SCOPES]).toEqual(scopes);
  });

  it("runs its members in lockstep; one cluster's models never share a worker id, nor two members a request id", () => {
    const members = fleet();
    const driver = new FleetController(members.map((m) => m.controller));
    driver.advance(T0 + 120_000);
    expect(driver.now).toBe(T0 + 120_000);
    for (const m of members) expect(m.sim.now).toBe(T0 + 120_000);
    const workers = (m: (typeof members)[number]) =>
      new Set(m.events.flatMap((e) => (e.kind === "worker.up" ? [e.worker_id] : [])));
    const [a, b] = members.filter((m) => m.cluster === "production").map(workers);
    expect(a!.size).toBeGreaterThan(0);
    expect([...a!].filter((w) => b!.has(w))).toEqual([]);
    expect([...b!].every((w) => /^w1\d\d$/.test(w))).toBe(true);
    const requestIds = members.map(
      (m) => new Set(m.events.flatMap((e) => (e.kind === "request" ? [e.request_id] : []))),
    );
    expect([...requestIds[0]!].filter((id) => requestIds[2]!.has(id))).toEqual([]);
  });

  it("stamps each line with its cluster, which the ingest schema reads, keying staging's workers", () => {
    const [, , staging] = fleet();
    staging!.sim.runUntil(T0 + 30_000);
    const stats = staging!.events.find((e) => e.kind === "worker.stats")!;
    const line = stampCluster(toJsonLine(stats), "staging");
    expect(JSON.parse(line)).toEqual({ cluster: "staging", ...JSON.parse(toJsonLine(stats)) });
    const parsed = parseEvent(JSON.parse(line));
    expect(parsed.ok && parsed.event.kind === "worker.stats" && parsed.event.worker_id).toBe(
      `staging/${(stats as { worker_id: string }).worker_id}`,
    );
  });

  it("serves each cluster's control API on its own path: a change reaches that cluster's members only", async () => {
    const members = fleet();
    const driver = new FleetController(members.map((m) => m.controller));
    const clusters = Object.fromEntries(
      fleetClusters().map((c) => [
        c,
        { target: new ClusterTarget(members.filter((m) => m.cluster === c).map((m) => m.controller)) },
      ]),
    );
    const server = createControlServer({ token: TOKEN, clusters });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

    const document = { ...defaultPolicies().routing, overlap_credit: 0.5 };
    let settled = false;
    const reply = fetch(`${base}${fleetControlPath("staging")}/control/policies/routing`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ version: 3, document }),
    }).finally(() => (settled = true));
    while (!settled) {
      await new Promise((r) => setTimeout(r, 5));
      driver.advance(driver.now + 100);
    }
    const res = await reply;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ kind: "routing", version: 3, status: "applied" });
    for (const m of members)
      expect({ cluster: m.cluster, version: m.sim.policies().routing.version }).toEqual({
        cluster: m.cluster,
        version: m.cluster === "staging" ? 3 : 0,
      });
    const prod = await fetch(`${base}${fleetControlPath("production")}/control/policies`, { headers });
    expect(((await prod.json()) as { routing: { version: number } }).routing.version).toBe(0);

    // The root serves no cluster of a fleet, and an unknown cluster is named with the known ones.
    const root = await fetch(`${base}/control/policies`, { headers });
    expect(root.status).toBe(404);
    expect(((await root.json()) as { error: string }).error).toContain("production, staging");
    const unknown = await fetch(`${base}/clusters/prod/control/policies`, { headers });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe(
      'unknown cluster "prod" (one of production, staging)',
    );
  });

  it("answers a change production's members refuse with the refusal, and applies it to none", async () => {
    const prod = fleet().filter((m) => m.cluster === "production");
    const target = new ClusterTarget(prod.map((m) => m.controller));
    const ack = target.apply("routing", 1, { overlap_credit: "lots" });
    for (const m of prod) m.controller.drain();
    const answer = await ack;
    expect(answer.ok).toBe(false);
    for (const m of prod) expect(m.sim.policies().routing.version).toBe(0);
  });

  it("applies a model's version to that model's members only, where it then outranks the cluster's line", async () => {
    const prod = fleet().filter((m) => m.cluster === "production");
    const [qwen, gpt] = prod;
    const target = new ClusterTarget(prod.map((m) => m.controller));
    const drained = async <T>(p: Promise<T>) => {
      for (const m of prod) m.controller.drain();
      return p;
    };
    const gptModel = gpt!.sim.model;
    const retention = defaultPolicies().retention;
    const short = { ...retention, default: { ...retention.default, priority: 10 } };
    expect(await drained(target.apply("retention", 1, short, [], gptModel))).toMatchObject({ ok: true, version: 1 });
    expect(gpt!.sim.policies(gptModel).retention).toMatchObject({ version: 1, document: short });
    expect(qwen!.sim.policies(qwen!.sim.model).retention.version).toBe(0);
    // The ack names the model, so the dashboard counts it for that model's line.
    expect(gpt!.events.filter((e) => e.kind === "policy.ack")).toMatchObject([
      { target: "sim", policy_kind: "retention", version: 1, status: "applied", model: gptModel },
    ]);
    expect(qwen!.events.filter((e) => e.kind === "policy.ack")).toEqual([]);
    // The cluster's v5 (numbered apart) reaches both; qwen runs it, gpt-oss keeps its own line.
    const other = { ...retention, default: { ...retention.default, priority: 70 } };
    expect(await drained(target.apply("retention", 5, other))).toMatchObject({ ok: true, version: 5 });
    expect(qwen!.sim.policies(qwen!.sim.model).retention).toMatchObject({ version: 5, document: other });
    expect(gpt!.sim.policies().retention.version).toBe(5);
    expect(gpt!.sim.policies(gptModel).retention).toMatchObject({ version: 1, document: short });
    expect(gpt!.sim.versions.retention).toBe(1);
    // A model production does not serve: refused with the ones it does, applied nowhere.
    const refused = await drained(target.apply("retention", 2, short, [], "llama-3"));
    expect(refused).toMatchObject({ ok: false, errors: [{ path: "model" }] });
    expect(!refused.ok && refused.errors[0]!.message).toBe(
      `llama-3 is not served here; the models are ${[gptModel, qwen!.sim.model].sort().join(", ")}`,
    );
  });

  it("takes a model in the control API's body and query, and refuses a malformed one", async () => {
    const prod = fleet().filter((m) => m.cluster === "production");
    const server = createControlServer({
      token: TOKEN,
      clusters: { production: { target: new ClusterTarget(prod.map((m) => m.controller)) } },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${fleetControlPath("production")}`;
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const model = prod[1]!.sim.model;
    const put = fetch(`${base}/control/policies/routing`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ version: 2, document: defaultPolicies().routing, model }),
    });
    const timer = setInterval(() => prod.forEach((m) => m.controller.drain()), 5);
    const res = await put.finally(() => clearInterval(timer));
    expect(res.status).toBe(200);
    const own = await fetch(`${base}/control/policies?model=${encodeURIComponent(model)}`, { headers });
    expect(((await own.json()) as { routing: { version: number } }).routing.version).toBe(2);
    const cluster = await fetch(`${base}/control/policies`, { headers });
    expect(((await cluster.json()) as { routing: { version: number } }).routing.version).toBe(0);
    const unknown = await fetch(`${base}/control/policies?model=llama`, { headers });
    expect(unknown.status).toBe(404);
    // The version is usable, so the refusal is acknowledged (on the cluster's line: the model is not one).
    const timer2 = setInterval(() => prod.forEach((m) => m.controller.drain()), 5);
    const badRes = await fetch(`${base}/control/policies/routing`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ version: 3, document: {}, model: "two words" }),
    }).finally(() => clearInterval(timer2));
    expect(badRes.status).toBe(422);
    expect(await badRes.json()).toMatchObject({ status: "rejected", errors: [{ path: "model" }] });
  });
});
