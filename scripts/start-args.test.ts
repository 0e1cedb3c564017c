import { describe, expect, it } from "vitest";
import { parseArgs } from "../server/sim/args";
import { planStart, type StartPlan } from "./start-args";

const defaults = { ingestToken: "sy_demo_generated_0123456789", controlToken: "sy_ctl_generated_0123456789" };
const plan = (argv: string[], env: Record<string, string> = {}): StartPlan => {
  const r = planStart(argv, env, defaults);
  if (!r.ok) throw new Error(r.error);
  return r.plan;
};

/** What the simulator will do with its arguments and the environment start.ts gives it. */
function simSees(p: StartPlan) {
  const r = parseArgs(p.simArgs, { SWITCHYARD_INGEST_TOKEN: p.ingestToken, SWITCHYARD_CONTROL_TOKEN: p.controlToken });
  if (!r.ok) throw new Error(r.error);
  return r.options;
}

describe("planStart: the dashboard and the simulator agree on the wiring", () => {
  it.each<[string, string[], Record<string, string>, { controlUrl: string; port: number }]>([
    ["defaults: control API next to the dashboard", [], {}, { port: 3000, controlUrl: "http://127.0.0.1:3001" }],
    ["PORT moves both", [], { PORT: "4000" }, { port: 4000, controlUrl: "http://127.0.0.1:4001" }],
    [
      "SWITCHYARD_SIM_CONTROL_PORT",
      [],
      { SWITCHYARD_SIM_CONTROL_PORT: "4500" },
      { port: 3000, controlUrl: "http://127.0.0.1:4500" },
    ],
    ["--control-port P", ["--control-port", "4600"], {}, { port: 3000, controlUrl: "http://127.0.0.1:4600" }],
    [
      "--control-port=P",
      ["--control-port=4601"],
      { SWITCHYARD_SIM_CONTROL_PORT: "4500" },
      { port: 3000, controlUrl: "http://127.0.0.1:4601" },
    ],
    [
      "--control-host 0.0.0.0 is reached on loopback",
      ["--control-host", "0.0.0.0"],
      {},
      { port: 3000, controlUrl: "http://127.0.0.1:3001" },
    ],
    ["--control-host ::1", ["--control-host", "::1"], {}, { port: 3000, controlUrl: "http://[::1]:3001" }],
  ])("%s", (_name, argv, env, expected) => {
    const p = plan(argv, env);
    expect(p).toMatchObject(expected);
    const sim = simSees(p);
    expect(sim.controlPort).toBe(p.controlPort);
    expect(p.controlUrl).toBe(
      `http://${sim.controlHost === "0.0.0.0" ? "127.0.0.1" : sim.controlHost.includes(":") ? `[${sim.controlHost}]` : sim.controlHost}:${sim.controlPort}`,
    );
    expect(sim.dashboard).toBe(`http://localhost:${p.port}`);
  });

  it("--token and --control-token reach the dashboard's settings and the simulator", () => {
    const p = plan([
      "--token",
      "sy_mine_ingest_0123456789",
      "--control-token=sy_mine_control_0123456789",
      "--speed",
      "4",
    ]);
    expect(p).toMatchObject({ ingestToken: "sy_mine_ingest_0123456789", controlToken: "sy_mine_control_0123456789" });
    const sim = simSees(p);
    expect(sim).toMatchObject({
      token: "sy_mine_ingest_0123456789",
      controlToken: "sy_mine_control_0123456789",
      speed: 4,
    });
    expect(p.simArgs.join(" ")).not.toContain("sy_mine");
  });

  it("passes other arguments through to the simulator, each shared one exactly once", () => {
    const p = plan(["--scenario", "preamble", "--control-port", "4700", "--fast", "--duration", "60"]);
    expect(p.simArgs.filter((a) => a === "--control-port")).toHaveLength(1);
    expect(simSees(p)).toMatchObject({ scenario: "preamble", fast: true, durationSeconds: 60, controlPort: 4700 });
  });

  // Each cluster, and each model of production (which serves two).
  const SCOPES = ["production", "production@gpt-oss-120b", "production@qwen3-coder-480b-a35b", "staging"];
  it.each([
    [["--scenario", "fleet"], SCOPES],
    [["--scenario=fleet", "--speed", "2"], SCOPES],
    [["--scenario", "steady"], null],
    [[], null],
  ])("%j runs a fleet of policy scopes %j (each its own target)", (argv, fleet) => {
    expect(plan(argv).fleet).toEqual(fleet);
  });

  it("uses the environment's tokens, then the generated ones", () => {
    expect(plan([], { SWITCHYARD_INGEST_TOKEN: "sy_env_ingest_0123456789" })).toMatchObject({
      ingestToken: "sy_env_ingest_0123456789",
      controlToken: defaults.controlToken,
    });
  });

  it.each<[string[], Record<string, string>, RegExp]>([
    [["--dashboard", "http://elsewhere:3000"], {}, /^--dashboard: .*npm run sim -- --dashboard URL/],
    [["--control-port", "0"], {}, /^--control-port 0: must be a port number .*any free port/],
    [["--control-port", "abc"], {}, /^--control-port abc: must be a port number/],
    [["--control-port", "70000"], {}, /^--control-port 70000: must be a port number/],
    [["--control-port", "3000"], {}, /^--control-port 3000: is the dashboard's port/],
    [[], { SWITCHYARD_SIM_CONTROL_PORT: "x" }, /^SWITCHYARD_SIM_CONTROL_PORT x: must be a port number/],
    [["--control-port"], {}, /^--control-port needs a value/],
    [["--token", "short"], {}, /^--token: must be 16 to 256 printable/],
    [["--control-token", "has a space in it 0123456789"], {}, /^--control-token: must be/],
    [[], { SWITCHYARD_INGEST_TOKEN: "short" }, /^SWITCHYARD_INGEST_TOKEN: must be/],
    [[], { PORT: "nope" }, /^PORT="nope": must be a port number/],
  ])("refuses %j %j with a message", (argv, env, message) => {
    const r = planStart(argv, env, defaults);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error).toMatch(message);
  });
});
