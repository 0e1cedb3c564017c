import "server-only";
import type { Db } from "../../db/client";
import { inProcessRunner, installedPreviewRunner, PreviewQueue } from "./queue";

const key = Symbol.for("switchyard.previewQueue");
type Holder = { [key]?: { db: Db; queue: PreviewQueue } };

/**
 * The process's preview queue for this database (shared by every route bundle): jobs go to the server's preview
 * threads when it installed them and the store is a file, else run inline (tests, in-memory stores).
 */
export function previewQueue(db: Db): PreviewQueue {
  const holder = globalThis as Holder;
  const held = holder[key];
  if (held && held.db === db) return held.queue;
  const threads = installedPreviewRunner();
  const runner = threads && !db.$client.memory ? threads : inProcessRunner(db);
  const queue = new PreviewQueue(db, runner);
  holder[key] = { db, queue };
  return queue;
}
