import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/sqlite/client";
import { insertUser } from "@/db/store/accounts";
import { SESSION_COOKIE } from "@/server/auth/constants";
import { startSession } from "@/server/auth/sign-in-sessions";
import { sqliteStore } from "@/db/store/store";
import type { ImportSummary } from "@/server/sources/dynamo-trace/import";
import { truncatedTraceUpload } from "@/test/trace-upload";
import { useTempServerEnv } from "@/test/server-env";
import { nodeArgs } from "../../../server/compiled";

const TOKEN = "sy_test_token_import_0123456789abcd";
const URL_ = "http://localhost:3000/api/import";
const fixture = () => readFile(path.join(process.cwd(), "server/sources/dynamo-trace/fixtures/agent-trace.jsonl"));

let restore: () => Promise<void>;
let POST: typeof import("./route").POST;
let db: Db;

beforeAll(async () => {
  ({ restore } = await useTempServerEnv("switchyard-import-route-", TOKEN));
  ({ POST } = await import("./route"));
  db = (await import("@/server/runtime")).serverEngine().db!;
});

afterAll(async () => {
  db?.$client.close();
  await restore();
});

const post = (body: BodyInit, headers: Record<string, string>) =>
  POST(new Request(URL_, { method: "POST", body, headers: { "x-switchyard-filename": "t.jsonl.gz", ...headers } }));

describe("POST /api/import", () => {
  const signIn = async (role: string) => {
    const id = await insertUser(
      sqliteStore(db),
      { username: `u-${role}-${Math.random().toString(36).slice(2, 8)}`, role, passwordHash: null },
      Date.now(),
    );
    return `${SESSION_COOKIE}=${(await startSession(sqliteStore(db), id, Date.now(), 60_000)).value}`;
  };

  it.each<[string, () => Promise<Record<string, string>>, number]>([
    ["nobody (no token, no session)", async () => ({ origin: "http://localhost:3000", host: "localhost:3000" }), 401],
    ["a wrong token", async () => ({ authorization: "Bearer wrong" }), 401],
    [
      "a signed-in viewer",
      async () => ({ cookie: await signIn("viewer"), origin: "http://localhost:3000", host: "localhost:3000" }),
      403,
    ],
    [
      "an operator's session used from another site",
      async () => ({ cookie: await signIn("operator"), origin: "http://evil.example", host: "localhost:3000" }),
      403,
    ],
  ])("refuses %s", async (_, headers, status) => {
    const res = await post(gzipSync(await fixture()), await headers());
    expect(res.status).toBe(status);
    expect(db.$client.prepare("SELECT count(*) FROM requests").pluck().get()).toBe(0);
  });

  it("imports a gzip trace uploaded by a signed-in operator from the dashboard and records the upload source's status", async () => {
    const res = await post(gzipSync(await fixture()), {
      cookie: await signIn("operator"),
      origin: "http://localhost:3000",
      host: "localhost:3000",
    });
    expect(res.status).toBe(200);
    const s = (await res.json()) as ImportSummary;
    expect(s).toMatchObject({ name: "t.jsonl.gz", records: 9, accepted: 4, rejected: 1, badLines: 3, fatal: null });
    expect(
      db.$client.prepare("SELECT kind, events_total AS events FROM source_status WHERE id = 'trace-upload'").get(),
    ).toEqual({ kind: "trace-upload", events: 4 });
  });

  it("puts every event of an upload in ?cluster=, and refuses a malformed name before reading the file", async () => {
    // The fixture's sessions and requests renamed, so none is a duplicate of the other tests' imports.
    const trace = (await fixture()).toString("utf8").replaceAll("dyn-s", "cl-s").replaceAll("cmpl-", "cl-cmpl-");
    const at = (q: string, headers: Record<string, string>) =>
      POST(
        new Request(`${URL_}${q}`, {
          method: "POST",
          body: gzipSync(trace),
          headers: { "x-switchyard-filename": "t.jsonl.gz", ...headers },
        }),
      );
    const bad = await at("?cluster=prod%20eu", { authorization: `Bearer ${TOKEN}` });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^cluster: must be 1 to 64 letters/);
    expect(db.$client.prepare("SELECT count(*) FROM requests WHERE session_id LIKE 'cl-s%'").pluck().get()).toBe(0);

    const res = await at("?cluster=staging-eu", { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(((await res.json()) as ImportSummary).accepted).toBe(4);
    const clusters = db.$client
      .prepare(
        "SELECT DISTINCT c.name FROM requests r JOIN clusters c ON c.id = r.cluster_id WHERE r.session_id LIKE 'cl-s%'",
      )
      .pluck()
      .all();
    expect(clusters).toEqual(["staging-eu"]);
  });

  it("says a truncated upload ended early and keeps its records", async () => {
    const res = await post(truncatedTraceUpload(), { authorization: `Bearer ${TOKEN}` });
    const s = (await res.json()) as ImportSummary;
    expect(s.fatal).toMatch(/ends early/);
    expect(db.$client.prepare("SELECT count(*) FROM requests WHERE session_id = 'cut'").pluck().get()).toBe(s.records);
  });
});

describe("npm run import (CLI) against a running server", () => {
  let server: http.Server;
  let base = "";
  let dir = "";

  beforeAll(async () => {
    server = http.createServer(async (req, res) => {
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: Readable.toWeb(req) as ReadableStream,
        duplex: "half",
      } as RequestInit);
      const reply = await POST(request);
      res.writeHead(reply.status, Object.fromEntries(reply.headers));
      res.end(Buffer.from(await reply.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = await mkdtemp(path.join(os.tmpdir(), "switchyard-import-cli-"));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [...nodeArgs("import"), ...args], {
        env: { ...process.env, SWITCHYARD_INGEST_TOKEN: "", ...env },
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("close", (code) => resolve({ code, out, err }));
    });

  it("posts a gzip trace with progress and a summary, exit 0; the turns are stored", async () => {
    const lines = Array.from({ length: 3_000 }, (_, i) =>
      JSON.stringify({
        event: {
          schema: "dynamo.agent.trace.v1",
          event_type: "request_end",
          event_time_unix_ms: 1_764_400_000_000 + i * 10,
          agent_context: { session_id: "cli-session" },
          request: { request_id: `cli-${i}`, model: "m", input_tokens: 100, cached_tokens: 50, output_tokens: 5 },
        },
      }),
    );
    const file = path.join(dir, "cli.jsonl.gz");
    await writeFile(file, gzipSync(lines.join("\n")));
    const r = await cli(["--dashboard", base, file], { SWITCHYARD_INGEST_TOKEN: TOKEN });
    expect(r.err).toMatch(/cli\.jsonl\.gz: .* MiB sent \(100%\)/);
    expect(r.out).toContain(`${file}: 3000 records, 3000 accepted, 0 already imported, 0 rejected, 0 bad lines`);
    expect(r.code).toBe(0);
    expect(db.$client.prepare("SELECT count(*) FROM requests WHERE session_id = 'cli-session'").pluck().get()).toBe(
      3_000,
    );
  });

  it("exits non-zero on a wrong token, a missing file, or a truncated file", async () => {
    const good = path.join(dir, "cli.jsonl.gz");
    const bad = await cli(["--dashboard", base, "--token", "wrong", good]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/HTTP 401: sign in, or send the ingest token/);
    expect((await cli(["--dashboard", base, "--token", TOKEN, path.join(dir, "missing.jsonl")])).code).toBe(1);
    const cut = path.join(dir, "cut.jsonl.gz");
    const whole = await readFile(good);
    await writeFile(cut, whole.subarray(0, whole.length >> 1));
    const r = await cli(["--dashboard", base, "--token", TOKEN, cut]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/error: gzip data ends early/);
    expect((await cli([])).code).toBe(2);
    const misnamed = await cli(["--dashboard", base, "--token", TOKEN, "--cluster", "prod eu", good]);
    expect(misnamed.code).toBe(1);
    expect(misnamed.err).toMatch(/HTTP 400: cluster: must be 1 to 64 letters/);
  });
});
