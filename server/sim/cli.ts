import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { isPolicyKind, POLICY_KINDS } from "../../lib/policies/policies";
import { parseArgs, USAGE, type CliOptions } from "./args";
import { createControlServer } from "./control-api";
import { SimController } from "./controller";
import { Delivery } from "./delivery";
import { Simulation } from "./engine";
import { toJsonLine, writeJsonLine } from "./json-lines";
import { ChainCompactor } from "./compact-chains";
import { NdjsonFile } from "./ndjson-file";
import { runSimulation } from "./runner";
import { budgetProblem, parseEngineProfile, type ProfileResult } from "./profile";
import { FLEET_SCENARIO, scenarioByName } from "./scenarios";
import { ClusterTarget, FLEET, FleetController, fleetClusters, stampCluster } from "./fleet";
import { NO_TIERS, offloadTierErrors, type TierConfig } from "./tiers";
import { parseWorkloadTrace, traceSpanMs, type TraceEntry, type TraceParse } from "./workload-trace";

// Entry point of the simulated cluster: `npm run sim -- --help`. The engine is pure; this file
// owns the I/O: the NDJSON file, delivery to the dashboard, the control API and signals.

export type CliIo = { log: (line: string) => void; env: Record<string, string | undefined>; handleSignals: boolean };

/** Run the simulator with command-line arguments; resolves to the process exit code. */
export async function main(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const log = io.log ?? ((line: string) => console.error(line));
  const parsed = parseArgs(argv, io.env ?? process.env);
  if (!parsed.ok) {
    log(`sim: ${parsed.error}\n\n${USAGE}`);
    return 2;
  }
  const o = parsed.options;
  if (o.help) {
    log(USAGE);
    return 0;
  }
  const startMs = o.startMs ?? Math.floor(Date.now() / 1000) * 1000;
  if (o.scenario === FLEET_SCENARIO) {
    const unsupported = fleetProblem(o);
    if (unsupported) {
      log(`sim: ${unsupported}`);
      return 2;
    }
  }
  let scenario = scenarioByName(o.scenario === FLEET_SCENARIO ? "steady" : o.scenario)!;
  if (o.engineProfile) {
    const loaded = loadEngineProfile(o.engineProfile, scenario.blockSize);
    if (!loaded.ok) {
      log(`sim: --engine-profile ${loaded.error}`);
      return 1;
    }
    scenario = { ...scenario, timing: loaded.timing };
  }
  let trace: { entries: TraceEntry[]; blockSize: number } | undefined;
  if (o.workload) {
    const parsed = loadWorkloadTrace(o.workload, o.traceBlockSize);
    if (!parsed.ok) {
      log(`sim: --workload ${parsed.error}`);
      return 1;
    }
    trace = { entries: parsed.entries, blockSize: o.traceBlockSize };
    log(
      `sim: --workload ${o.workload}: ${parsed.entries.length} requests over ${Math.round(traceSpanMs(parsed.entries) / 1000)} s`,
    );
  }
  if (o.tierBandwidth) scenario = { ...scenario, tierBandwidth: o.tierBandwidth };
  // One simulation, or a fleet's members (each its own seed: its own ids and hashes), each with its cluster (null: the
  // events name none, so they belong to the default cluster).
  const members: { cluster: string | null; sim: Simulation }[] =
    o.scenario === FLEET_SCENARIO
      ? FLEET.map((m, i) => ({
          cluster: m.cluster,
          sim: new Simulation({ scenario: m.scenario, seed: o.seed + i, startMs }),
        }))
      : [
          {
            cluster: null,
            sim: new Simulation({
              scenario,
              seed: o.seed,
              startMs,
              ...(trace ? { trace } : {}),
              ...(o.tiers ? { tiers: o.tiers } : {}),
            }),
          },
        ];
  const sim = members[0]!.sim;
  if (o.policies) {
    const error = loadPolicies(sim, o.policies, sim.tiers);
    if (error) {
      log(`sim: ${error}`);
      return 1;
    }
  }

  // Full buffers are written on a helper thread: the simulation does not wait on the disk.
  const file = o.out ? new NdjsonFile(o.out, undefined, { thread: true }) : null;
  const delivery = o.dashboard ? new Delivery({ url: `${o.dashboard}/api/ingest`, token: o.token!, log }) : null;
  let events = 0;
  for (const { cluster, sim } of members) {
    // The file holds what the dashboard receives: requests in the compact form unless --full-chains.
    const compactor = o.fullChains ? null : new ChainCompactor();
    if (cluster !== null) {
      // A fleet member's lines name its cluster (a fleet is for watching, so no fast path into the file's buffer).
      sim.setSink((event) => {
        events++;
        const out = compactor ? compactor.line(event) : { line: toJsonLine(event), full: null };
        const line = stampCluster(out.line, cluster);
        const full = out.full;
        file?.write(line);
        delivery?.push(line, full && (() => stampCluster(full(), cluster)));
      });
      continue;
    }
    sim.setSink(
      delivery
        ? (event) => {
            events++;
            const out = compactor ? compactor.line(event) : { line: toJsonLine(event), full: null };
            file?.write(out.line);
            delivery.push(out.line, out.full);
          }
        : (event) => {
            events++;
            if (!file) return;
            // No line strings: the event's pieces go straight into the file's buffer.
            if (compactor) compactor.write(event, file);
            else writeJsonLine(event, file);
            file.endLine();
          },
    );
  }
  delivery?.start();

  const controllers = members.map((m) => new SimController(m.sim));
  const controller = controllers.length === 1 ? controllers[0]! : new FleetController(controllers);
  const wall0 = performance.now();
  let server: Server | null = null;
  if (o.controlPort !== null) {
    const status = () => ({
      scenario: o.scenario,
      seed: o.seed,
      sim_time: Math.round(controller.now),
      events,
      delivery: delivery?.stats ?? null,
    });
    const fleet = members[0]!.cluster !== null;
    const clusters = Object.fromEntries(
      (fleet ? fleetClusters() : []).map((name) => [
        name,
        { target: new ClusterTarget(controllers.filter((_, i) => members[i]!.cluster === name)), status },
      ]),
    );
    server = createControlServer(
      !fleet
        ? { target: controller as SimController, token: o.controlToken!, tiers: sim.tiers, status }
        : { token: o.controlToken!, clusters },
    );
    const address = await listen(server, o.controlPort, o.controlHost);
    const base = `http://${o.controlHost}:${address.port}`;
    if (!fleet) log(`sim: control API on ${base}/control/policies`);
    else
      for (const name of Object.keys(clusters))
        log(`sim: ${name}'s control API on ${base}/clusters/${name}/control/policies`);
  }

  const abort = new AbortController();
  const stop = () => abort.abort();
  if (io.handleSignals ?? false) {
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    // Started by `npm start` (which talks to it over an IPC channel): stop when that supervisor is gone.
    process.channel?.unref();
    process.once("disconnect", stop);
  }
  log(`sim: scenario ${o.scenario}, seed ${o.seed}, start ${startMs}, ${describePace(o)}`);
  if (members.length > 1)
    for (const m of members)
      log(
        `sim:   ${m.cluster}: ${m.sim.options.scenario.model}, block size ${m.sim.options.scenario.blockSize}, seed ${m.sim.options.seed}`,
      );
  try {
    const endMs = o.durationSeconds === null ? null : startMs + o.durationSeconds * 1000;
    const reached = await runSimulation({
      controller,
      pace: o.fast ? { kind: "fast" } : { kind: "live", speed: o.speed },
      endMs,
      signal: abort.signal,
      ...(delivery ? { backpressure: () => delivery.backpressure() } : {}),
      ...(trace && o.fast && o.durationSeconds === null
        ? { done: () => sim.replay!.finished >= trace.entries.length }
        : {}),
    });
    file?.close();
    const wall = (performance.now() - wall0) / 1000;
    const simulated = (reached - startMs) / 1000;
    log(
      `sim: simulated ${simulated.toFixed(0)} s in ${wall.toFixed(1)} s (${(simulated / wall).toFixed(1)} x real time), ${events} events (${Math.round(events / wall)} per wall second)`,
    );
    if (delivery) await delivery.close(abort.signal.aborted ? 5_000 : 60_000);
    return 0;
  } finally {
    if (io.handleSignals ?? false) {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.off("disconnect", stop);
    }
    if (server) await new Promise((resolve) => server!.close(resolve));
  }
}

/** Apply a --policies file as the start configuration; returns an error message or null. */
export function loadPolicies(sim: Simulation, path: string, tiers: TierConfig = NO_TIERS): string | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    return `--policies ${path}: ${err instanceof SyntaxError ? "not valid JSON" : "cannot be read"}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return `--policies ${path}: must be an object { ${POLICY_KINDS.join("?, ")}? }`;
  const docs = value as Record<string, unknown>;
  for (const key of Object.keys(docs))
    if (!isPolicyKind(key)) return `--policies ${path}: unknown policy kind ${JSON.stringify(key)}`;
  for (const kind of POLICY_KINDS) {
    if (!(kind in docs)) continue;
    const missing = offloadTierErrors(kind, docs[kind], tiers);
    if (missing.length)
      return `--policies ${path}: invalid ${kind} policy: ${missing.map((e) => `${e.path}: ${e.message}`).join("; ")}`;
    const result = sim.configure(kind, docs[kind]);
    if (!result.ok)
      return `--policies ${path}: invalid ${kind} policy: ${result.errors.map((e) => `${e.path || "(document)"}: ${e.message}`).join("; ")}`;
  }
  return null;
}

/** Read and check an --engine-profile file against the scenario's block size. */
export function loadEngineProfile(path: string, blockSize: number): ProfileResult {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { ok: false, error: `${path}: cannot be read` };
  }
  const parsed = parseEngineProfile(text, path);
  if (!parsed.ok) return parsed;
  const problem = budgetProblem(parsed.timing, blockSize);
  return problem ? { ok: false, error: `${path}: ${problem}` } : parsed;
}

/** Read a --workload trace (plain or gzip JSONL) and check every line before anything plays. */
export function loadWorkloadTrace(path: string, blockSize: number): TraceParse {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return { ok: false, error: `${path}: cannot be read` };
  }
  let text: string;
  try {
    text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes, { maxOutputLength: 2 ** 30 }) : bytes).toString(
      "utf8",
    );
  } catch {
    return { ok: false, error: `${path}: not a readable gzip file` };
  }
  return parseWorkloadTrace(text, path, blockSize);
}

/** Why options cannot go with --scenario fleet, or null (each of these shapes one cluster). */
function fleetProblem(o: CliOptions): string | null {
  const one = [
    o.workload && "--workload",
    o.engineProfile && "--engine-profile",
    o.policies && "--policies",
    o.tiers && "--tiers",
    o.tierBandwidth && "--tier-bandwidth",
  ].filter(Boolean);
  return one.length
    ? `${one.join(", ")} cannot be used with --scenario ${FLEET_SCENARIO} (they shape one cluster)`
    : null;
}

function describePace(o: CliOptions): string {
  const pace = o.fast ? "as fast as possible" : `${o.speed} x real time`;
  return `${pace}${o.durationSeconds === null ? ", until stopped" : `, ${o.durationSeconds} simulated s`}`;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), { handleSignals: true }).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error("sim: failed:", err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
