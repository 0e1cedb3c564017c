// One decode thread of PostgreSQL's ingest: JSON parsing and per-item validation of request bodies, off the event
// loop; the main thread stores the result. One message per body.
import { parentPort } from "node:worker_threads";
import { AppError } from "../../errors";
import { nameThread } from "../../jobs/thread-priority";
import { decodeForStore } from "./decode";
import { reportThreadMemory } from "../../observability/thread-memory";

reportThreadMemory();

nameThread("sy-pg-decode");

type Message = { id: number; text: string; contentType: string };

parentPort!.on("message", (m: Message) => {
  try {
    parentPort!.postMessage({ id: m.id, body: decodeForStore(m.text, m.contentType) });
  } catch (err) {
    const error =
      err instanceof AppError ? { code: err.code, message: err.message } : { code: "INTERNAL", message: String(err) };
    parentPort!.postMessage({ id: m.id, error });
  }
});
