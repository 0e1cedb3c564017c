import "server-only";
import type { Db } from "../../db/sqlite/client";
import type { Store } from "../../db/store/store";
import { PreviewQueue } from "./queue";
import { inProcessRunner, installedPreviewRunner } from "./runners";

const key = Symbol.for("switchyard.previewQueue");
type Holder = { [key]?: { store: Store; queue: PreviewQueue } };

/**
 * The process's preview queue for this store (shared by every route bundle): jobs go to the server's preview threads
 * when it installed them and the store is PostgreSQL or a SQLite file, else run inline (tests, in-memory stores).
 * `db`: the SQLite connection of a SQLite store (its window is read through it), unused on PostgreSQL.
 */
export function previewQueue(store: Store): PreviewQueue {
  const holder = globalThis as Holder;
  const held = holder[key];
  if (held && held.store === store) return held.queue;
  const threads = installedPreviewRunner();
  const inline = store.sqlite?.$client.memory === true;
  const runner = threads && !inline ? threads : inProcessRunner(store.sqlite ?? store);
  const queue = new PreviewQueue(store, runner);
  holder[key] = { store, queue };
  return queue;
}
