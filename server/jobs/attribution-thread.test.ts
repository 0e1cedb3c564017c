import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../db/sqlite/client";
import { metrics } from "../observability/metrics";
import { startAttributionThread } from "./attribution-thread";

// The attribution thread's owner restarts it when it stops by itself; a tiny heap limit makes it stop while loading,
// so each restart stops again and the owner backs off instead of spinning. Stopping it ends the restarts.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-attribution-thread-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const restarts = async () =>
  (await metrics().threadRestarts.get()).values
    .filter((v) => v.labels.thread === "attribution")
    .reduce((a, v) => a + v.value, 0);

describe("attribution thread supervision", () => {
  it("restarts a thread that ran out of memory, with backoff, until stopped", async () => {
    const file = path.join(dir, "a.db");
    openDb(file).$client.close();
    const before = await restarts();
    const stop = startAttributionThread(file, 24, new SharedArrayBuffer(64), { maxOldGenerationSizeMb: 2 });
    // At once, then after 0.5 s and 1 s: three restarts within about two seconds.
    await expect.poll(restarts, { timeout: 15_000 }).toBeGreaterThanOrEqual(before + 3);
    await stop();
    const stopped = await restarts();
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await restarts()).toBeLessThanOrEqual(stopped + 1);
  }, 30_000);
});
