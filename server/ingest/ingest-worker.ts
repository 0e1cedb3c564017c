// One ingest worker thread: its own connection to the database file; one message per request body.
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/client";
import { AppError } from "../errors";
import { ingestBodyTallied } from "./ingest";
import { errorMessage, log } from "../observability/logger";

const db = openDb((workerData as { dbFile: string }).dbFile);

parentPort!.on("message", (m: { id: number; text: string; contentType: string }) => {
  try {
    const { reply, tally } = ingestBodyTallied(db, m.text, m.contentType);
    parentPort!.postMessage({ id: m.id, reply: JSON.stringify(reply), tally });
  } catch (err) {
    const error =
      err instanceof AppError
        ? { code: err.code, message: err.message }
        : { code: "INTERNAL", message: "internal error" };
    if (!(err instanceof AppError)) log().error({ err: errorMessage(err) }, "ingest failed");
    parentPort!.postMessage({ id: m.id, error });
  }
});
