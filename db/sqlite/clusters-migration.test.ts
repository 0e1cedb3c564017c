import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openDb } from "./client";
import { migratedDatabases } from "../../test/migrated-at";
import { T0 } from "../../test/events";

const { databaseAt, cleanup } = migratedDatabases();
afterEach(cleanup);

describe("migration 0026: clusters", () => {
  it("puts every row stored before it in the default cluster (id 0), which the clusters table names", () => {
    const file = databaseAt("0025_known_devices");
    const old = new Database(file);
    old
      .prepare(
        `INSERT INTO worker_stats (id, ts, worker_id, kv_active_blocks, kv_total_blocks, requests_running, requests_waiting,
           prefix_query_tokens, prefix_hit_tokens) VALUES ('ws-1', ?, 'w1', 1, 2, 0, 0, '0', '0')`,
      )
      .run(T0);
    old
      .prepare(
        `INSERT INTO requests (id, ts, request_id, api, model, arrived_at, input_tokens, cached_tokens, output_tokens, status)
         VALUES ('rq-1', ?, 'r1', 'responses', 'm', ?, 8, 0, 1, 'ok')`,
      )
      .run(T0, T0);
    old.close();
    const db = openDb(file).$client;
    expect(db.prepare("SELECT cluster_id FROM worker_stats").pluck().all()).toEqual([0]);
    expect(db.prepare("SELECT cluster_id FROM requests").pluck().all()).toEqual([0]);
    expect(db.prepare("SELECT id, name FROM clusters").raw().all()).toEqual([[0, "default"]]);
    db.close();
  });
});

describe("migration 0027: policies of a cluster", () => {
  it("puts every version, guard and target stored before it in the default cluster, and numbers per cluster after", () => {
    const file = databaseAt("0026_clusters");
    const old = new Database(file);
    old
      .prepare(
        `INSERT INTO policy_versions (kind, version, document, author, created_at) VALUES ('routing', 1, '{}', 'ana', ?)`,
      )
      .run(T0);
    old
      .prepare(
        `INSERT INTO policy_guards (kind, version, window_minutes, created_at, state) VALUES ('routing', 1, 10, ?, 'waiting')`,
      )
      .run(T0);
    old.prepare(`INSERT INTO control_targets (id, name, adapter, created_at) VALUES ('sim', 'Sim', 'sim', ?)`).run(T0);
    old.close();
    const db = openDb(file).$client;
    expect(db.prepare("SELECT cluster, kind, version FROM policy_versions").raw().all()).toEqual([
      ["default", "routing", 1],
    ]);
    expect(db.prepare("SELECT cluster, state FROM policy_guards").raw().all()).toEqual([["default", "waiting"]]);
    expect(db.prepare("SELECT cluster FROM control_targets").pluck().all()).toEqual(["default"]);
    // Another cluster's version 1 of the same kind is its own row.
    db.prepare(
      `INSERT INTO policy_versions (cluster, kind, version, document, author, created_at)
       VALUES ('staging', 'routing', 1, '{}', 'ana', ?)`,
    ).run(T0);
    expect(db.prepare("SELECT count(*) FROM policy_versions").pluck().get()).toBe(2);
    db.close();
  });
});
