// One PostgreSQL ingest thread: decodes, validates and stores request bodies on its own connections, so that the
// dashboard's event loop only answers HTTP. One message per body; a body is handed to the store in the order it came.
import { parentPort, workerData } from "node:worker_threads";
import { connectPg } from "../../../db/pg/client";
import { utf8Text } from "../../../lib/utf8";
import { AppError } from "../../errors";
import { nameThread } from "../../jobs/thread-priority";
import { errorMessage, log } from "../../observability/logger";
import { reportThreadMemory } from "../../observability/thread-memory";
import type { Sender } from "../sender";
import { ingestBodyPg } from "./ingest-body";
import { pgUnavailableError } from "./unavailable";

reportThreadMemory();
// Named so its CPU time can be told from the other threads' (bench:storage's CPU by thread).
nameThread("sy-pg-ingest");

const { databaseUrl } = workerData as { databaseUrl: string };
// Two connections: one batch's inserts and commit overlap the next one's reads (db/pg/ingest.ts takes turns in call
// order, so bodies are still stored in the order they arrived).
const pg = connectPg(databaseUrl, { max: 2 });

/** `text`: the body's bytes (UTF-8) moved here by the pool, decoded on this thread. */
type Message = { id: number; text: string | Uint8Array; contentType: string; sender?: Sender };

parentPort!.on("message", (m: Message) => {
  const text = typeof m.text === "string" ? m.text : utf8Text(m.text);
  ingestBodyPg(pg, text, m.contentType, m.sender).then(
    ({ reply, tally }) => parentPort!.postMessage({ id: m.id, reply: JSON.stringify(reply), tally }),
    (err: unknown) => {
      const e = err instanceof AppError ? err : pgUnavailableError(err);
      if (!e) log().error({ err: errorMessage(err) }, "ingest failed");
      parentPort!.postMessage({
        id: m.id,
        error: e
          ? { code: e.code, message: e.message, details: e.details }
          : { code: "INTERNAL", message: "internal error" },
      });
    },
  );
});
