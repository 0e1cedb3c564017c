// The simulator's stream as it sends it to a dashboard (`npm run sim -- --dashboard URL`): request chains in the
// compact wire form (prefix_of) unless fullChains, every other event as is. Each compact request's full-list line is
// kept aside, so a benchmark can answer an unknown_prefix refusal as the simulator's delivery does (re-send in full).
import fs from "node:fs";
import { ChainCompactor } from "../server/sim/compact-chains";
import { SimController } from "../server/sim/controller";
import { Simulation } from "../server/sim/engine";
import { toJsonLine } from "../server/sim/json-lines";
import { NdjsonFile } from "../server/sim/ndjson-file";
import { runSimulation } from "../server/sim/runner";
import { scenarioByName } from "../server/sim/scenarios";

export type SimStream = {
  /** The lines as sent, one event per line. */
  file: string;
  events: number;
  /** Line number (0-based, in `file`) of each compact request → its full-list line, as [byte offset, byte length] in `fullFile`. */
  fallbacks: Map<number, [number, number]>;
  fullFile: string;
};

/** Run a scenario at full speed (as `--fast`) and write the lines the simulator would post to a dashboard. */
export async function writeSimStream(o: {
  file: string;
  fullFile: string;
  scenario: string;
  seed: number;
  startMs: number;
  seconds: number;
  fullChains?: boolean;
}): Promise<SimStream> {
  const scenario = scenarioByName(o.scenario);
  if (!scenario) throw new Error(`unknown scenario ${o.scenario}`);
  const sim = new Simulation({ scenario, seed: o.seed, startMs: o.startMs });
  const out = new NdjsonFile(o.file);
  const full = fs.openSync(o.fullFile, "w");
  const compactor = o.fullChains ? null : new ChainCompactor();
  const fallbacks = new Map<number, [number, number]>();
  let fullBytes = 0;
  let events = 0;
  sim.setSink((event) => {
    const line = compactor ? compactor.line(event) : { line: toJsonLine(event), full: null };
    if (line.full) {
      const bytes = Buffer.from(line.full(), "utf8");
      fs.writeSync(full, bytes);
      fallbacks.set(events, [fullBytes, bytes.byteLength]);
      fullBytes += bytes.byteLength;
    }
    out.write(line.line);
    events++;
  });
  try {
    await runSimulation({
      controller: new SimController(sim),
      pace: { kind: "fast" },
      endMs: o.startMs + o.seconds * 1000,
    });
  } finally {
    out.close();
    fs.closeSync(full);
  }
  return { file: o.file, events, fallbacks, fullFile: o.fullFile };
}

/** The full-list line kept for a compact request (see SimStream.fallbacks). */
export function fullLine(stream: SimStream, fd: number, line: number): string | null {
  const at = stream.fallbacks.get(line);
  if (!at) return null;
  const buf = Buffer.allocUnsafe(at[1]);
  fs.readSync(fd, buf, 0, at[1], at[0]);
  return buf.toString("utf8");
}
