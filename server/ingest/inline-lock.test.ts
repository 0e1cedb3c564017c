import { describe, expect, it } from "vitest";
import { sqliteStore } from "../../db/store/store";
import { ndjson, stats, T0 } from "../../test/events";
import { useHeldLock } from "../../test/held-lock";
import { ingestRunner } from "./runner";
import { ingestOver } from "./seam";

// Ingest without ingest threads (SWITCHYARD_INGEST_WORKERS=0) stores on the dashboard's shared SQLite connection, whose
// busy timeout is 250 ms. The attribution thread, another connection, holds the write lock longer than that for its
// flushes: a body then failed with "database is locked" (a 500 to the sender; bench:storage stopped on it). Its write
// now waits for the lock on the event loop, as the dashboard's other writes do.

describe("ingest on the event loop while another connection holds the write lock past the busy timeout", () => {
  const { a, holdLock } = useHeldLock("inline-lock-");
  const count = () => a().$client.prepare("SELECT count(*) FROM worker_stats").pluck().get() as number;

  it("runs without an ingest thread here", () => {
    expect(ingestRunner()).toBeUndefined();
  });

  it("a posted body is stored once the lock is free, with its sender", async () => {
    const ingest = ingestOver(sqliteStore(a()));
    holdLock();
    const body = ndjson([stats("w1", T0, 3, 10, { id: "s1" }), stats("w1", T0 + 1000, 4, 10, { id: "s2" })]);
    const out = await ingest.body(Buffer.from(body), "application/x-ndjson", { source: "edge-a", dropped: null });
    expect(JSON.parse(out.json)).toMatchObject({ accepted: 2, rejected: 0 });
    expect(count()).toBe(2);
    const sources = a().$client.prepare("SELECT count(*) FROM source_status WHERE id = 'ingest:edge-a'").pluck().get();
    expect(sources).toBe(1);
  });

  it("a body with no valid event still records its sender and stores nothing", async () => {
    const ingest = ingestOver(sqliteStore(a()));
    holdLock();
    const out = await ingest.body(Buffer.from('{"kind":"nope"}\n'), "application/x-ndjson", {
      source: "edge-b",
      dropped: null,
    });
    expect(JSON.parse(out.json)).toMatchObject({ accepted: 0, rejected: 1 });
    expect(a().$client.prepare("SELECT count(*) FROM source_status WHERE id = 'ingest:edge-b'").pluck().get()).toBe(1);
    const garbled = await ingest.body(Buffer.from("not json\n"), "application/x-ndjson", {
      source: "edge-b",
      dropped: null,
    });
    expect(JSON.parse(garbled.json)).toMatchObject({ accepted: 0, rejected: 1 });
    expect(count()).toBe(0);
  });

  it("events submitted inside the server (importers, scrapers) are stored the same way", async () => {
    const ingest = ingestOver(sqliteStore(a()));
    holdLock();
    const reply = await ingest.submit([stats("w2", T0, 1, 10, { id: "s3" })]);
    expect(reply).toMatchObject({ accepted: 1, rejected: 0 });
    expect(count()).toBe(1);
  });
});
