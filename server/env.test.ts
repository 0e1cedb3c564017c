import { describe, expect, it } from "vitest";
import { EnvError, ingestWorkers, parseEnv } from "./env";

function envError(raw: Record<string, string | undefined>): EnvError {
  try {
    parseEnv(raw);
  } catch (err) {
    if (err instanceof EnvError) return err;
    throw err;
  }
  throw new Error("expected parseEnv to throw");
}

describe("parseEnv", () => {
  it("applies every default to an empty environment", () => {
    expect(parseEnv({})).toEqual({
      PORT: 3000,
      HOST: "0.0.0.0",
      SWITCHYARD_DB: "./data/switchyard.db",
      SWITCHYARD_RAW_RETENTION_HOURS: 24,
      SWITCHYARD_RETENTION_DAYS: 30,
      SWITCHYARD_RETENTION_SWEEP_SECONDS: 300,
      SWITCHYARD_RECONCILE_SECONDS: 5,
      SWITCHYARD_ALERT_EVALUATE_SECONDS: 15,
      SWITCHYARD_SESSION_HOURS: 12,
      SWITCHYARD_LOG_LEVEL: "info",
      SWITCHYARD_TARGET_DIR: "./data/targets",
      SWITCHYARD_IMPORT_DIR: "./data/imports",
      SWITCHYARD_PREVIEW_MEMORY_MB: 1024,
      SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES: ["k8s.cluster.name", "service.namespace"],
      NODE_ENV: "production",
    });
  });

  it("treats empty strings as unset", () => {
    expect(parseEnv({ PORT: "", SWITCHYARD_INGEST_TOKEN: "", SWITCHYARD_DB: "" })).toMatchObject({
      PORT: 3000,
      SWITCHYARD_DB: "./data/switchyard.db",
    });
    expect(parseEnv({ SWITCHYARD_INGEST_TOKEN: "" }).SWITCHYARD_INGEST_TOKEN).toBeUndefined();
  });

  it.each<[string, Record<string, string>, Record<string, unknown>]>([
    ["port", { PORT: "8080" }, { PORT: 8080 }],
    ["retention days", { SWITCHYARD_RETENTION_DAYS: "7" }, { SWITCHYARD_RETENTION_DAYS: 7 }],
    ["fractional retention hours", { SWITCHYARD_RAW_RETENTION_HOURS: "0.5" }, { SWITCHYARD_RAW_RETENTION_HOURS: 0.5 }],
    [
      "token",
      { SWITCHYARD_INGEST_TOKEN: "abcdefghijklmnopqrstuvwxyz012345" },
      { SWITCHYARD_INGEST_TOKEN: "abcdefghijklmnopqrstuvwxyz012345" },
    ],
    ["db path", { SWITCHYARD_DB: "/tmp/x.db" }, { SWITCHYARD_DB: "/tmp/x.db" }],
    ["node env", { NODE_ENV: "test" }, { NODE_ENV: "test" }],
    [
      "a PostgreSQL URL",
      { SWITCHYARD_DATABASE_URL: "postgres://sw:pw@db:5432/switchyard" },
      { SWITCHYARD_DATABASE_URL: "postgres://sw:pw@db:5432/switchyard" },
    ],
    ["inline ingest", { SWITCHYARD_INGEST_WORKERS: "0" }, { SWITCHYARD_INGEST_WORKERS: 0 }],
    [
      "the embedded sim's control API",
      { SWITCHYARD_SIM_CONTROL_URL: "http://127.0.0.1:3001" },
      { SWITCHYARD_SIM_CONTROL_URL: "http://127.0.0.1:3001" },
    ],
    ["a faster reconcile loop", { SWITCHYARD_RECONCILE_SECONDS: "0.5" }, { SWITCHYARD_RECONCILE_SECONDS: 0.5 }],
    [
      "OTLP cluster attributes, in order",
      { SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES: "service.namespace,k8s.cluster.name" },
      { SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES: ["service.namespace", "k8s.cluster.name"] },
    ],
    ["unrelated variables are ignored", { PATH: "/usr/bin", HOME: "/root" }, { PORT: 3000 }],
  ])("reads %s", (_name, raw, expected) => {
    expect(parseEnv(raw)).toMatchObject(expected);
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["PORT", "0"],
    ["PORT", "80.5"],
    ["SWITCHYARD_RAW_RETENTION_HOURS", "-1"],
    ["SWITCHYARD_RAW_RETENTION_HOURS", "0"],
    ["SWITCHYARD_RAW_RETENTION_HOURS", "soon"],
    ["SWITCHYARD_RETENTION_SWEEP_SECONDS", "0"],
    ["SWITCHYARD_RETENTION_DAYS", "0"],
    ["SWITCHYARD_RETENTION_DAYS", "1.5"],
    ["SWITCHYARD_RETENTION_DAYS", "5000"],
    ["SWITCHYARD_RETENTION_DAYS", "forever"],
    ["SWITCHYARD_INGEST_WORKERS", "-1"],
    ["SWITCHYARD_INGEST_WORKERS", "17"],
    ["SWITCHYARD_INGEST_TOKEN", "tooshort"],
    ["SWITCHYARD_INGEST_TOKEN", "has a space in the middle ok"],
    ["NODE_ENV", "staging"],
    ["SWITCHYARD_SIM_CONTROL_URL", "ftp://sim:21"],
    ["SWITCHYARD_SIM_CONTROL_TOKEN", "short"],
    ["SWITCHYARD_RECONCILE_SECONDS", "0"],
    ["SWITCHYARD_ALERT_EVALUATE_SECONDS", "0"],
    ["SWITCHYARD_PUBLIC_URL", "not a url"],
    ["SWITCHYARD_DATABASE_URL", "mysql://sw:pw@db/x"],
    ["SWITCHYARD_DATABASE_URL", "postgres://"],
    ["SWITCHYARD_DATABASE_URL", "postgres://db/x with space"],
    ["SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES", "k8s.cluster.name,,service.namespace"],
    ["SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES", "k8s cluster"],
  ])("%s=%s throws an EnvError naming the setting in one line", (name, value) => {
    const err = envError({ [name]: value });
    expect(err.message).toContain(name);
    expect(err.message).not.toMatch(/\n/);
  });

  it("names the token rule that failed", () => {
    expect(envError({ SWITCHYARD_INGEST_TOKEN: "tooshort" }).message).toContain("at least 16 characters");
  });

  // secrets never in logs; the EnvError message is printed at startup.
  it.each(["tooshort", "a token with spaces that is long"])(
    "does not echo a rejected ingest token (%s) in the message",
    (token) => {
      expect(envError({ SWITCHYARD_INGEST_TOKEN: token }).message).not.toContain(token);
    },
  );

  it("shows a rejected database URL with its password masked", () => {
    const message = envError({ SWITCHYARD_DATABASE_URL: "mysql://sw:s3cret@db/x" }).message;
    expect(message).toContain("SWITCHYARD_DATABASE_URL");
    expect(message).toContain("mysql://sw:***@db/x");
    expect(message).not.toContain("s3cret");
  });
});

describe("ingestWorkers", () => {
  it.each([
    ["SQLite, unset: one (a second connection taking turns would start every batch with a cold page cache)", {}, 1],
    [
      "PostgreSQL, unset: one ingest thread (bodies stored in arrival order)",
      { SWITCHYARD_DATABASE_URL: "postgres://sw:pw@db:5432/switchyard" },
      1,
    ],
    ["set: as set, on SQLite", { SWITCHYARD_INGEST_WORKERS: "3" }, 3],
    ["set to 0: inline", { SWITCHYARD_INGEST_WORKERS: "0" }, 0],
    [
      "set: as set, on PostgreSQL",
      { SWITCHYARD_INGEST_WORKERS: "2", SWITCHYARD_DATABASE_URL: "postgres://sw:pw@db:5432/switchyard" },
      2,
    ],
  ])("%s", (_, vars, n) => {
    expect(ingestWorkers(parseEnv(vars))).toBe(n);
  });
});
