// The ingest pool's checkpoint thread: every second, a PASSIVE checkpoint on its own connection copies committed WAL
// frames into the database file while ingest goes on writing (a passive checkpoint never takes the write lock and
// never waits for readers).
import { workerData } from "node:worker_threads";
import fs from "node:fs";
import Database from "better-sqlite3";
import { reportThreadMemory } from "../observability/thread-memory";

reportThreadMemory();

try {
  fs.writeFileSync("/proc/thread-self/comm", "sy-checkpoint"); // Linux: the thread's name (bench:storage's CPU by thread)
} catch {}

const { dbFile, everyMs } = workerData as { dbFile: string; everyMs: number };
const db = new Database(dbFile, { timeout: 0 });
setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy (another checkpoint is running) or closing: the next tick tries again.
  }
}, everyMs);
