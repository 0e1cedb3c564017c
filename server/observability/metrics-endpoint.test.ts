import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { T0 } from "../../test/events";
import { createToken } from "../auth/tokens";
import { families, metricsCases, SQLITE_METRICS, type Opened } from "./metrics-endpoint.cases";
import { metricsReply } from "./metrics-endpoint";

// GET /metrics on SQLite (the same cases run on PostgreSQL in metrics-endpoint.pg.test.ts), and its text checked by
// promtool when installed.

metricsCases(SQLITE_METRICS);

describe("GET /metrics text", () => {
  let opened: Opened;
  beforeAll(async () => {
    opened = await SQLITE_METRICS.open();
  });
  afterAll(async () => {
    await opened?.close();
  });

  it("is valid Prometheus text (promtool check metrics when installed)", async () => {
    const s = opened.sink.store;
    const NOW = T0 + 3_600_000;
    const { token } = await createToken(s, { name: "prom3", scope: "read", createdBy: "t" }, NOW);
    const { body } = await metricsReply(s, opened.sqliteFile, { authorization: `Bearer ${token}` }, NOW);
    expect(families(body).length).toBeGreaterThan(10);
    const promtool = spawnSync("sh", ["-c", "command -v promtool"], { encoding: "utf8" }).stdout.trim();
    if (!promtool) return;
    // promtool exits non-zero on a format error or a lint problem, printing what it found.
    expect(() =>
      execFileSync(promtool, ["check", "metrics"], { input: body, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] }),
    ).not.toThrow();
  });
});
