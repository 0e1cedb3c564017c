// A preview thread: its own read connection to the database file (or to PostgreSQL), kept between jobs (starting a thread costs
// seconds of module loading), and the baselines it replayed (a second candidate on a window replays only itself).
// Three kinds of message: a job (one preview, its progress and result posted back with its id; with a `helper` port
// its baseline replays in the thread at the other end of that port), `serve` (be that helper for one job: the
// baseline replayed for the port's other end, then `helped` posted back with the job's id), and a `task` (the
// capacity page's curves or replayed capacities, server/capacity/compute.ts: its result posted back as `done`).
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { openDb } from "../../db/sqlite/client";
import { connectPg } from "../../db/pg/client";
import { pgStore } from "../../db/store/store";
import { AppError } from "../errors";
import { nameThread } from "../jobs/thread-priority";
import { helperOn, serveBaseline } from "./baseline-helper";
import { computePreview, computePreviewBeside, type WindowFrom } from "./compute";
import type { PreparedPreview } from "./request";
import type { PreviewResult } from "./types";
import { reportThreadMemory } from "../observability/thread-memory";
import { SQLITE_CACHE_MB } from "../../lib/memory-bounds";
import { runTask, type ThreadTask } from "../capacity/compute";

reportThreadMemory();

nameThread("sy-preview");
const { dbFile, databaseUrl, minHelpedTurns } = workerData as {
  dbFile: string;
  databaseUrl?: string;
  minHelpedTurns?: number;
};
const db: WindowFrom = databaseUrl
  ? pgStore(connectPg(databaseUrl, { max: 2 }))
  : openDb(dbFile, 200, SQLITE_CACHE_MB.preview);

type Message =
  | { id: number; request: PreparedPreview; helper?: MessagePort }
  | { id: number; serve: MessagePort }
  | { id: number; task: ThreadTask };

const failure = (id: number, err: unknown) => ({
  id,
  error: err instanceof Error ? err.message : String(err),
  code: err instanceof AppError ? err.code : "INTERNAL",
});

parentPort!.on("message", (m: Message) => {
  if ("serve" in m) return serveBaseline(m.serve, () => parentPort!.postMessage({ id: m.id, helped: true }));
  if ("task" in m)
    return void runTask(db, m.task).then(
      (done) => parentPort!.postMessage({ id: m.id, done }),
      (err: unknown) => parentPort!.postMessage(failure(m.id, err)),
    );
  let last = 0;
  const hooks = {
    progress: (share: number) => {
      const now = Date.now();
      if (now - last < 200 && share < 1) return;
      last = now;
      parentPort!.postMessage({ id: m.id, progress: share });
    },
  };
  const fail = (err: unknown) => parentPort!.postMessage(failure(m.id, err));
  const answer = (result: PreviewResult) => parentPort!.postMessage({ id: m.id, result });
  if (m.helper)
    return void computePreviewBeside(db, m.request, helperOn(m.helper), hooks, minHelpedTurns).then(answer, fail);
  void computePreview(db, m.request, hooks).then(answer, fail);
});
