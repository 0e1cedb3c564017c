// Two real dashboard processes on one SQLite file (the scenario is test/two-dashboards.ts): a repeat KV list is
// stored as a reference to a row of either process, and references resolve when read back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDb, type Db } from "../db/sqlite/client";
import { encodeHashes } from "../db/codecs/chains";
import { chainsOf } from "../db/sqlite/chains";
import { idKey } from "../db/ingest/kv-rows";
import { kvBlockList } from "../db/sqlite/kv-lists";
import { buildIfNeeded } from "../scripts/build-if-needed.mjs";
import { stopAll, type Proc } from "./processes";
import { twoDashboards, type Sent } from "./two-dashboards";

let dir: string;
const procs: Proc[] = [];

beforeAll(() => {
  buildIfNeeded();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-two-dashboards-"));
}, 900_000);

afterAll(async () => {
  await stopAll(procs);
  fs.rmSync(dir, { recursive: true, force: true });
});

it("the follower leads within 15 s of the leader's SIGKILL; nothing acknowledged is lost; a published policy reaches the simulator", async () => {
  const dbFile = path.join(dir, "switchyard.db");
  const readBack = async (sent: Sent) => {
    const db: Db = openDb(dbFile);
    try {
      const kvRows = db.$client.prepare("SELECT id_key, block_hashes, block_refs FROM kv_events").all() as {
        id_key: number;
        block_hashes: Buffer | null;
        block_refs: Buffer | null;
      }[];
      const byKey = new Map(kvRows.map((r) => [r.id_key, r]));
      expect(sent.kv.size).toBeGreaterThan(60);
      let referenced = 0;
      for (const [id, hashes] of sent.kv) {
        const row = byKey.get(idKey(id));
        expect(row, id).toBeDefined();
        if (row!.block_refs !== null) referenced++;
        expect(kvBlockList(db, row!.block_hashes, row!.block_refs)?.equals(encodeHashes(hashes)), id).toBe(true);
      }
      // References were made (to rows of either process) and resolve.
      expect(referenced).toBeGreaterThan(0);
      for (const [id, chain] of sent.requests)
        expect(chainsOf(db, id)?.seq?.equals(encodeHashes(chain)), id).toBe(true);
    } finally {
      db.$client.close();
    }
  };
  await twoDashboards({ procs, dir }, { settings: { SWITCHYARD_DB: dbFile }, readBack });
}, 600_000);
