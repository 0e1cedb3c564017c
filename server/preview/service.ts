import "server-only";
import type { Db } from "../../db/client";
import { env } from "../env";
import { inProcessRunner, PreviewQueue, threadRunner } from "./queue";

const key = Symbol.for("switchyard.previewQueue");
type Holder = { [key]?: { db: Db; queue: PreviewQueue } };

/** The process's preview queue for this database (shared by every route bundle); threads when the store is a file. */
export function previewQueue(db: Db): PreviewQueue {
  const holder = globalThis as Holder;
  const held = holder[key];
  if (held && held.db === db) return held.queue;
  const file = env().SWITCHYARD_DB;
  const runner = file === ":memory:" || db.$client.memory ? inProcessRunner(db) : threadRunner(file);
  const queue = new PreviewQueue(db, runner);
  holder[key] = { db, queue };
  return queue;
}
