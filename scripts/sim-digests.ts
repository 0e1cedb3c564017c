// `node scripts/run-compiled.mjs scripts/sim-digests.ts [SIMULATED_SECONDS] [SCENARIO...]`: the SHA-256 of the simulator's --out file for the steady,
// pressure, surge and offload scenarios, seeds 1-3, with and without --full-chains (24 runs, default 1,200 simulated
// seconds each; the scenarios named instead of all four), one line per run. Run it on two revisions and diff the lines: a change meant to keep the output
// (e.g. a faster block pool) must print the same 24 digests.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../server/sim/cli";

const START = 1764400000000;
const ALL = ["steady", "pressure", "surge", "offload"];

async function run(seconds: number, scenarios: readonly string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "sim-digests-"));
  try {
    for (const scenario of scenarios)
      for (const seed of [1, 2, 3])
        for (const full of [false, true]) {
          const out = join(dir, "out.ndjson");
          const argv = ["--scenario", scenario, "--seed", String(seed), "--start", String(START), "--fast"];
          argv.push("--duration", String(seconds), "--out", out);
          if (full) argv.push("--full-chains");
          let summary = "";
          const code = await main(argv, { env: {}, log: (line) => (summary = line) });
          if (code !== 0) {
            console.error(`${scenario} seed ${seed}: exit ${code}: ${summary}`);
            return code;
          }
          const digest = createHash("sha256").update(readFileSync(out)).digest("hex");
          const label = `${scenario} seed=${seed} ${full ? "full-chains" : "compact"}`;
          console.log(`${digest}  ${label}`);
          rmSync(out);
        }
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const seconds = Number(process.argv[2] ?? 1_200);
const named = process.argv.slice(3);
if (!Number.isFinite(seconds) || seconds <= 0 || named.some((s) => !ALL.includes(s))) {
  console.error(`usage: sim-digests [SIMULATED_SECONDS > 0] [${ALL.join(" | ")}...]`);
  process.exit(2);
}
run(seconds, named.length ? named : ALL).then((code) => process.exit(code));
