import { spawn } from "node:child_process";
import net from "node:net";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { freePort } from "../lib/free-port";
import { nodeArgs } from "../server/compiled";

// `npm start` as a newcomer runs it: dashboard + simulated cluster, signed in through the printed link, overview live
// within seconds, Ctrl-C stops both in order (the simulator delivers what it holds before the dashboard stops).
test("npm start shows the simulated cluster on the overview and stops cleanly on Ctrl-C", async ({ page }) => {
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-start-"));
  const port = 3240;
  const controlPort = port + 7;
  // Its own process group, like a command started from a terminal: Ctrl-C signals the whole group.
  const child = spawn(process.execPath, [...nodeArgs("start"), "--speed", "4", "--control-port", String(controlPort)], {
    env: {
      ...process.env,
      PORT: String(port),
      SWITCHYARD_DB: path.join(dir, "db.sqlite"),
      SWITCHYARD_SIM_CONTROL_PORT: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (d) => (output += String(d)));
  child.stderr.on("data", (d) => (output += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    await expect.poll(() => output, { timeout: 90_000 }).toContain("Switchyard is running");
    // The printed link signs the newcomer in as this run's demo admin in one step.
    const login = /open (http:\/\/localhost:\d+\/login#\S+)/.exec(output)?.[1];
    expect(login, output).toBeTruthy();
    await page.goto(login!);
    await expect(page.getByTestId("current-user")).toContainText("demo");
    await page.goto(`http://localhost:${port}/?range=5m`);
    await expect(page.getByTestId("kpi-workers")).toHaveText("8", { timeout: 30_000 });
    await expect(page.getByText(/8 aggregated/)).toBeVisible();
    await expect(page.getByTestId("kpi-rps")).not.toHaveText("0.00");
    await expect(page.getByTestId("kpi-hit-rate")).toHaveText(/%$/);

    // `--control-port` moves the simulator's control API, the banner and the dashboard's policy target together.
    const control = new RegExp(
      `control API: (http://127\\.0\\.0\\.1:${controlPort})/control/policies \\(Bearer (\\S+)\\)`,
    ).exec(output);
    expect(control, output).toBeTruthy();
    const res = await fetch(`${control![1]}/control/policies`, { headers: { authorization: `Bearer ${control![2]}` } });
    expect(res.status).toBe(200);
    await page.goto(`http://localhost:${port}/sources`);
    await expect(page.getByTestId("target-row-sim")).toContainText(`http://127.0.0.1:${controlPort}`);
  } finally {
    process.kill(-child.pid!, "SIGINT");
    expect(await exited, output).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  expect(output).not.toContain("not delivered");
  expect(output).not.toMatch(/stopped with|did not stop/);
  const res = await fetch(`http://localhost:${port}/api/health`).catch(() => null);
  expect(res).toBeNull();
  const sim = await fetch(`http://127.0.0.1:${controlPort}/control/policies`).catch(() => null);
  expect(sim).toBeNull();
});

// A dashboard already running on the port (or any program there) is named in one line before anything starts: the
// health check would otherwise pass against it, and the simulator would post into it.
test("npm start on a port that is taken says so in one line and starts nothing", async () => {
  const port = await freePort();
  const holder = net.createServer().listen(port, "0.0.0.0");
  await new Promise((resolve) => holder.once("listening", resolve));
  try {
    const child = spawn(process.execPath, nodeArgs("start"), {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += String(d)));
    child.stderr.on("data", (d) => (output += String(d)));
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    expect(code).toBe(2);
    expect(output.trim()).toBe(
      `npm start: port ${port} is not free (EADDRINUSE): another Switchyard or another program may be running there; stop it, or start on another port: PORT=${port + 10} npm start`,
    );
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
