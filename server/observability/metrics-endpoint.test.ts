import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPg } from "../../db/pg/client";
import { pgStore } from "../../db/store/store";
import { freePort } from "../../lib/free-port";
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

describe("GET /metrics while PostgreSQL is unreachable", () => {
  it("answers 503 with Retry-After, not 500, and says why", async () => {
    // A port with nothing listening: every query fails to connect, as when the server is stopped.
    const port = await freePort();
    const pg = connectPg(`postgres://postgres@127.0.0.1:${port}/switchyard`, { connectTimeoutSeconds: 2 });
    try {
      const r = await metricsReply(pgStore(pg), null, { authorization: "Bearer sy_read_0123456789abcdef" }, T0);
      expect(r.status).toBe(503);
      expect(r.headers["retry-after"]).toMatch(/^\d+$/);
      expect(JSON.parse(r.body).error).toMatch(/PostgreSQL\) is unreachable/);
    } finally {
      await pg.$client.end({ timeout: 1 });
    }
  });

  it("still throws other errors (the caller answers 500)", async () => {
    const sqlite = await SQLITE_METRICS.open();
    const broken = {
      ...sqlite.sink.store,
      get db(): never {
        throw new Error("boom");
      },
    };
    try {
      await expect(metricsReply(broken, null, { authorization: "Bearer sy_x_0123456789abcdef" }, T0)).rejects.toThrow(
        "boom",
      );
    } finally {
      await sqlite.close();
    }
  });
});
