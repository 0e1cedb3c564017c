// Two real dashboard processes on one PostgreSQL (the scenario is test/two-dashboards.ts): every acknowledged KV list
// and request chain is read back from PostgreSQL, and no SQLite file is created by either process.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeHashes } from "../db/codecs/chains";
import type { PgDb } from "../db/pg/client";
import { idKey } from "../db/ingest/kv-rows";
import { sessionChainsOf } from "../db/store/export";
import { pgStore } from "../db/store/store";
import { buildIfNeeded } from "../scripts/build-if-needed.mjs";
import { freshPg, PG_TEST_URL } from "./pg";
import { seedAccounts, stopAll, type Proc } from "./processes";
import { TEST_SECRET_KEY } from "./secret-key";
import { ADMIN_TOKEN, DEMO_PASSWORD, twoDashboards, type Sent } from "./two-dashboards";

describe.skipIf(!PG_TEST_URL)("two dashboards on one PostgreSQL", () => {
  let dir: string;
  let pg: PgDb;
  let url: string;
  let drop: () => Promise<void>;
  const procs: Proc[] = [];

  beforeAll(async () => {
    buildIfNeeded();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-two-dashboards-pg-"));
    ({ pg, url, drop } = await freshPg());
    await seedAccounts(pgStore(pg), { adminToken: ADMIN_TOKEN, demoPassword: DEMO_PASSWORD });
  }, 900_000);

  afterAll(async () => {
    await stopAll(procs);
    await drop?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the follower leads within 15 s of the leader's SIGKILL; nothing acknowledged is lost; a published policy reaches the simulator", async () => {
    const sqliteFile = path.join(dir, "never-opened.db");
    const readBack = async (sent: Sent) => {
      const rows = await pg.$client<{ id_key: number; block_hashes: Buffer | null; block_refs: Buffer | null }[]>`
        SELECT id_key, block_hashes, block_refs FROM kv_events`;
      const byKey = new Map(rows.map((r) => [Number(r.id_key), r]));
      expect(sent.kv.size).toBeGreaterThan(60);
      for (const [id, hashes] of sent.kv) {
        const row = byKey.get(idKey(id));
        expect(row, id).toBeDefined();
        expect(row!.block_refs, id).toBeNull();
        expect(row!.block_hashes?.equals(encodeHashes(hashes)), id).toBe(true);
      }
      const chains = await sessionChainsOf(pgStore(pg), "s1");
      expect(sent.requests.size).toBeGreaterThan(20);
      for (const [id, chain] of sent.requests)
        expect(chains.get(id.replace(/^req-/, "r"))?.sequence_hashes, id).toEqual(chain);
      expect(fs.existsSync(sqliteFile)).toBe(false);
    };
    await twoDashboards(
      { procs, dir },
      {
        settings: { SWITCHYARD_DATABASE_URL: url, SWITCHYARD_DB: sqliteFile, SWITCHYARD_SECRET_KEY: TEST_SECRET_KEY },
        readBack,
      },
    );
  }, 600_000);
});
