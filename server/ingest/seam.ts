import type { Store } from "../../db/store/store";
import { serverStore } from "../runtime";
import type { BatchReply } from "./batch";
import { ingestBodyInline } from "./ingest";
import { ingestBodyPg } from "./pg/ingest-body";
import { submitEventsPg } from "./pg/submit";
import { ingestRunner, type IngestOutcome } from "./runner";
import type { Sender } from "./sender";
import { submitEvents } from "./submit";
import { utf8Text } from "../../lib/utf8";

// The one way into the store for telemetry: POST /api/ingest, OTLP logs, trace imports and every running source call
// `ingestOver(store)` (the server's: `serverIngest()` in server/runtime.ts). The engine is chosen here, once, from the
// store: SQLite or PostgreSQL through the engine's ingest threads when installed, else inline.

export type Ingest = {
  /** The store the events land in (sources also report their status there). */
  store: Store;
  /** One body as a sender POSTs it (NDJSON or a JSON array, UTF-8): the reply's JSON and what it held. */
  body: (bytes: Buffer, contentType: string, sender: Sender) => Promise<IngestOutcome>;
  /**
   * Events produced inside the server (OTLP logs, importers, scrapers, subscribers), stored exactly as if posted: the
   * same validation and idempotency, counted under the sender name "internal".
   */
  submit: (events: readonly unknown[]) => Promise<BatchReply>;
};

const byStore = new WeakMap<Store, Ingest>();

/** The ingest over one store (the same object for the same store). */
export function ingestOver(store: Store): Ingest {
  let ingest = byStore.get(store);
  if (!ingest) {
    ingest = store.pg ? pgIngest(store) : sqliteIngest(store);
    byStore.set(store, ingest);
  }
  return ingest;
}

function pgIngest(store: Store): Ingest {
  const pg = store.pg!;
  return {
    store,
    // As on SQLite: the bytes move to the ingest thread that decodes and stores them when the pool is installed.
    body: async (bytes, contentType, sender) => {
      const runner = ingestRunner();
      if (runner) return runner(bytes, contentType, sender);
      const { reply, tally } = await ingestBodyPg(pg, utf8Text(bytes), contentType, sender);
      return { json: JSON.stringify(reply), tally };
    },
    submit: (events) => submitEventsPg(pg, events),
  };
}

function sqliteIngest(store: Store): Ingest {
  return {
    store,
    // The bytes move to the ingest thread that decodes them when the pool is installed (read at each call: the
    // server installs it after the first routes may have loaded).
    body: async (bytes, contentType, sender) => {
      const runner = ingestRunner();
      if (runner) return runner(bytes, contentType, sender);
      const { reply, tally } = await ingestBodyInline(store, utf8Text(bytes), contentType, sender);
      return { json: JSON.stringify(reply), tally };
    },
    submit: (events) => submitEvents(store, events),
  };
}

/** The server process's ingest: over serverStore(), the engine the environment chose. */
export function serverIngest(): Ingest {
  return ingestOver(serverStore());
}

/**
 * The same ingest with every submitted event put in `cluster` (a trace import's `?cluster=`): the name is checked
 * with the events, so a malformed one refuses each event with the reason.
 */
export function inCluster<T extends Pick<Ingest, "submit">>(ingest: T, cluster: string): T {
  return {
    ...ingest,
    submit: (events) =>
      ingest.submit(
        events.map((e) => (e !== null && typeof e === "object" && !Array.isArray(e) ? { ...e, cluster } : e)),
      ),
  };
}
