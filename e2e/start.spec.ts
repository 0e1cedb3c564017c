import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

// `npm start` as a newcomer runs it: dashboard + simulated cluster, signed in through the printed link, overview live
// within seconds, Ctrl-C stops both.
test("npm start shows the simulated cluster on the overview and stops on Ctrl-C", async ({ page }) => {
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-start-"));
  const port = 3240;
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "--speed", "4"], {
    env: { ...process.env, PORT: String(port), SWITCHYARD_DB: path.join(dir, "db.sqlite"), SWITCHYARD_SIM_CONTROL_PORT: String(port + 1) },
    stdio: ["ignore", "pipe", "pipe"],
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
  } finally {
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const res = await fetch(`http://localhost:${port}/api/health`).catch(() => null);
  expect(res).toBeNull();
});
