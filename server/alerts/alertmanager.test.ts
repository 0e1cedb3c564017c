import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopAndRemove } from "../../test/stop-process";
import { freePort } from "../../lib/free-port";
import { createOutboundFetch } from "../outbound/fetch";
import { currentPolicy } from "../outbound/settings";
import type { AlertState } from "./evaluate";
import { Outbox, type Receiver } from "./outbox";

// Deliveries against a real Alertmanager (Debian's prometheus-alertmanager; .ci/run installs it): a firing alert
// reads back from its v2 API with its labels and link, a resolved one leaves its active alerts, and one it refuses
// (400) is kept with Alertmanager's reason and not tried again. Skipped without the binary, except in CI.

const BIN = "prometheus-alertmanager";
const present = spawnSync(BIN, ["--version"], { encoding: "utf8" }).status === 0;
const required = process.env.CI === "true";
if (!present && !required)
  console.log(`${BIN} not found (apt-get install ${BIN}): Alertmanager delivery tests skipped`);

let proc: ChildProcess | null = null;
let dir = "";
let url = "";
const http = createOutboundFetch(currentPolicy());

beforeAll(async () => {
  if (!present && !required) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-am-"));
  fs.writeFileSync(path.join(dir, "am.yml"), 'route:\n  receiver: "null"\nreceivers:\n  - name: "null"\n');
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  proc = spawn(
    BIN,
    [
      `--config.file=${path.join(dir, "am.yml")}`,
      `--storage.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--cluster.listen-address=",
    ],
    { stdio: "ignore" },
  );
  for (let i = 0; i < 100; i++) {
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("Alertmanager did not become ready in 10 s");
}, 20_000);

afterAll(async () => {
  await http.close();
  await stopAndRemove(proc, dir);
});

type AmRead = { labels: Record<string, string>; annotations: Record<string, string>; status: { state: string } };
async function active(alertname: string): Promise<AmRead[]> {
  const res = await fetch(`${url}/api/v2/alerts?filter=${encodeURIComponent(`alertname="${alertname}"`)}`);
  return (await res.json()) as AmRead[];
}

const state = (rule: string, firedAt: number): AlertState => ({
  rule,
  key: "w1",
  labels: { cluster: "pressure", worker: "w1" },
  state: "firing",
  activeAt: firedAt,
  firedAt,
  value: 12,
  summary: "w1 preempts 12/min",
  link: "/workers/pressure%2Fw1?range=1h",
  severity: "critical",
});

describe.skipIf(!present && !required)("delivery to a real Alertmanager", () => {
  it("a firing alert reads back with its labels and link; resolved, it leaves the active alerts", async () => {
    const receiver: Receiver = { id: "am", kind: "alertmanager", url };
    const box = new Outbox(http.fetch, "https://switchyard.example");
    const a = state("preemptions_e2e", Date.now() - 5_000);
    box.enqueue(receiver, [{ alert: a, resolvedAt: null }]);
    await box.flush([receiver]);
    expect(box.state("am")).toMatchObject({ sent: 1, lastError: null });
    const [got] = await active("preemptions_e2e");
    expect(got!.labels).toMatchObject({
      alertname: "preemptions_e2e",
      cluster: "pressure",
      worker: "w1",
      severity: "critical",
    });
    expect(got!.annotations.link).toBe("https://switchyard.example/workers/pressure%2Fw1?range=1h");
    expect(got!.status.state).toBe("active");

    box.enqueue(receiver, [{ alert: a, resolvedAt: Date.now() - 1_000 }]);
    await box.flush([receiver]);
    expect(box.state("am").sent).toBe(2);
    expect(await active("preemptions_e2e")).toEqual([]);
  });

  it("an alert Alertmanager refuses (400) is kept with its reason and not sent again", async () => {
    const receiver: Receiver = { id: "am-bad", kind: "alertmanager", url };
    const box = new Outbox(http.fetch, "https://switchyard.example");
    // Ends before it starts: Alertmanager answers 400.
    const a = state("refused_e2e", Date.now());
    box.enqueue(receiver, [{ alert: a, resolvedAt: a.firedAt! - 60_000 }]);
    await box.flush([receiver]);
    const s = box.state("am-bad");
    expect(s.lastError?.status).toBe(400);
    expect(s.lastError?.reason).toMatch(/HTTP 400: .*(start|end)/i);
    expect([s.failed, s.queued]).toEqual([1, 0]);
  });
});
