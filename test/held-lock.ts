import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { openDb, type Db } from "../db/sqlite/client";

/** The dashboard's shared connection's busy timeout (ms), as server/runtime opens it. */
const SHARED_BUSY_MS = 250;

/**
 * Two connections to a fresh database file for each test of the calling `describe`: `a` as the dashboard's shared one
 * (busy timeout 250 ms) and `b` as another thread's (an ingest or attribution thread). `holdLock(ms)` takes the write
 * lock on `b` and lets it go after `ms` by a timer, which fires only if the code under test waits on the event loop:
 * a write that waits inside SQLite instead fails with "database is locked" after the busy timeout.
 */
export function useHeldLock(prefix: string): { a: () => Db; b: () => Db; holdLock: (ms?: number) => void } {
  let dir: string;
  let a: Db;
  let b: Db;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    [a, b] = [openDb(path.join(dir, "s.db"), SHARED_BUSY_MS), openDb(path.join(dir, "s.db"))];
  });
  afterEach(() => {
    if (b.$client.inTransaction) b.$client.exec("ROLLBACK");
    a.$client.close();
    b.$client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    a: () => a,
    b: () => b,
    holdLock: (ms = 400) => {
      b.$client.exec("BEGIN IMMEDIATE");
      setTimeout(() => b.$client.exec("COMMIT"), ms);
    },
  };
}
