// The dashboard process: validate settings, open and migrate the database (the SQLite file of SWITCHYARD_DB, or
// PostgreSQL at SWITCHYARD_DATABASE_URL, in which case no SQLite file is opened), then serve the built Next app.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import next from "next";
import { env, EnvError, ingestWorkers, type Env } from "./env";
import { checkEngine, EngineError } from "./engine-start";
import { ensureIngestToken } from "./ingest/token";
import { startAttributionThread } from "./jobs/attribution-thread";
import { processId, startLeader } from "./jobs/leader";
import { IngestPool } from "./ingest/worker-pool";
import { PgIngestPool } from "./ingest/pg/ingest-pool";
import { setPreviewRunner } from "./preview/runners";
import { startAlertLoop } from "./alerts/loop";
import { outboundFetch } from "./outbound/fetch";
import { threadRunner } from "./preview/thread-runner";
import { retentionSweep, startRetentionSweeper } from "./jobs/retention";
import { startChartSealer } from "./jobs/chart-seal";
import { serverEngine, type ServerEngine } from "./runtime";
import { defaultAdapters } from "./control/adapters";
import { startReconciler } from "./control/reconciler";
import { startGuardLoop } from "./control/guard-loop";
import { windowRows } from "../db/store/impact";
import { registerSimTargets } from "./control/sim-targets";
import { startSources, syncEnvTargets } from "./sources/manager";
import { serverIngest } from "./ingest/seam";
import { parseScrapeTargets } from "./sources/prometheus/env-targets";
import { countTokens, countUsers } from "../db/store/accounts";
import { deleteExpiredAuth } from "../db/store/auth";
import type { Store } from "../db/store/store";
import { maskUrl } from "../lib/mask-url";
import { createSetupLink, ensureDemoAdmin } from "./auth/accounts";
import { parseTrustedProxies, proxyView } from "./auth/proxy-trust";
import { pruneLoginFailures } from "./auth/rate-limit";
import { ensureConfiguredTokens } from "./auth/tokens";
import { SecretKeyError } from "./auth/secret-box";
import { installSecretKey, sealStoredSecrets } from "./auth/stored-secrets";
import { errorMessage, log } from "./observability/logger";
import { instrumentRequest, metrics } from "./observability/metrics";
import { metricsReply } from "./observability/metrics-endpoint";
import { startHeapGuard } from "./observability/heap-guard";
import { startLoopStallMonitor } from "./observability/loop-stalls";
import { startMallocTrim } from "./observability/memory-trim";
import { DASHBOARD_MAIN_HEAP_MB } from "./memory-budget";

function settingsOrExit(): Env {
  try {
    return env();
  } catch (err) {
    if (err instanceof EnvError) {
      log().fatal(`invalid settings: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}

function secretKeyOrExit(settings: Env): Buffer {
  try {
    return installSecretKey(settings);
  } catch (err) {
    if (err instanceof SecretKeyError) {
      log().fatal(err.message);
      process.exit(1);
    }
    throw err;
  }
}

async function main() {
  const settings = settingsOrExit();
  startHeapGuard(DASHBOARD_MAIN_HEAP_MB);
  startMallocTrim();
  const key = secretKeyOrExit(settings);
  await checkEngine(settings.SWITCHYARD_DATABASE_URL).catch((err: unknown) => {
    if (!(err instanceof EngineError)) throw err;
    log().fatal(err.message);
    process.exit(1);
  });
  // `npm run dev` (scripts/dev.mjs) runs Next in development mode: pages compile on demand, no build needed.
  const dev = process.env.SWITCHYARD_DEV === "1";
  if (!dev && !fs.existsSync(path.join(process.cwd(), ".next", "BUILD_ID"))) {
    log().fatal("no production build found; run `npm run build` first (or `npm start`, which builds when needed)");
    process.exit(1);
  }
  // Chosen once, here: everything below stores through `store`; `db` (SQLite) or `pg` is set, never both.
  const engine = serverEngine();
  const { db, pg, store } = engine;
  await sealStoredSecrets(store, key);
  const setupSecret = await firstStartAccounts(store, settings);
  const pool = ingestPool(settings);
  pool?.install();
  setPreviewRunner(
    threadRunner(settings.SWITCHYARD_DB, {
      databaseUrl: settings.SWITCHYARD_DATABASE_URL,
      memoryMb: settings.SWITCHYARD_PREVIEW_MEMORY_MB,
    }),
  );
  if (settings.SWITCHYARD_SIM_CONTROL_URL && settings.SWITCHYARD_SIM_CONTROL_TOKEN)
    await registerSimTargets(store, {
      url: settings.SWITCHYARD_SIM_CONTROL_URL,
      token: settings.SWITCHYARD_SIM_CONTROL_TOKEN,
      fleet: settings.SWITCHYARD_SIM_CLUSTERS ?? null,
    });
  await syncEnvTargets(store, parseScrapeTargets(settings.SWITCHYARD_SCRAPE_TARGETS), Date.now());
  // Background work runs on the one process that holds the lease; pages and ingest run on every process.
  const leader = startLeader(store, () => startBackground(engine, settings), { holder: processId() });

  const app = next({ dev, dir: process.cwd(), hostname: "localhost", port: settings.PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  const trustedProxies = parseTrustedProxies(settings.SWITCHYARD_TRUST_PROXY);
  metrics();
  const server = http.createServer((req, res) => {
    instrumentRequest(req, res);
    if (req.method === "GET" && (req.url === "/metrics" || req.url?.startsWith("/metrics?")))
      return void serveMetrics(store, db?.$client.name ?? null, req, res);
    // X-Forwarded-* only from SWITCHYARD_TRUST_PROXY's proxies; sign-ins are rate-limited by the client's address.
    const view = proxyView(req.headers, req.socket.remoteAddress, trustedProxies);
    for (const name of view.drop) delete req.headers[name];
    req.headers["x-switchyard-client-address"] = view.clientAddress;
    void handle(req, res);
  });
  server.on("error", (err: NodeJS.ErrnoException) => {
    log().fatal(
      { port: settings.PORT, code: err.code },
      `cannot listen on port ${settings.PORT}: ${err.code ?? err.message}`,
    );
    process.exit(1);
  });
  server.listen(settings.PORT, settings.HOST, () => {
    const database = settings.SWITCHYARD_DATABASE_URL
      ? maskUrl(settings.SWITCHYARD_DATABASE_URL)
      : settings.SWITCHYARD_DB;
    log().info({ port: settings.PORT, database }, `Switchyard dashboard on http://localhost:${settings.PORT}`);
    startLoopStallMonitor();
    if (setupSecret) {
      process.stderr.write(
        `No users yet: create the first admin at http://localhost:${settings.PORT}/setup#${setupSecret} (works once, valid 1 hour)\n`,
      );
      log().info("no users yet: a one-time setup link was shown on stderr");
    }
  });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close();
    void leader
      .stop()
      .then(() => pool?.close())
      .finally(async () => {
        if (pg) await pg.$client.end({ timeout: 5 }).catch(() => {});
        else db?.$client.close();
        process.exit(0);
      });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Started by `npm start` (which talks to it over an IPC channel): stop when that supervisor is gone.
  if (process.channel) {
    process.channel.unref();
    process.on("disconnect", stop);
  }
}

/**
 * First-start account steps, on either engine: configured tokens stored, the demo admin, the one-time setup link
 * (returned when no user exists yet) and a generated ingest token (shown once on stderr).
 */
async function firstStartAccounts(store: Store, settings: Env): Promise<string | null> {
  const emptyBefore = (await countUsers(store)) === 0 && (await countTokens(store)) === 0;
  await ensureConfiguredTokens(
    store,
    { ingest: settings.SWITCHYARD_INGEST_TOKEN, bootstrap: settings.SWITCHYARD_BOOTSTRAP_API_TOKEN },
    emptyBefore,
    Date.now(),
  );
  if (settings.SWITCHYARD_DEMO_ADMIN_PASSWORD)
    await ensureDemoAdmin(store, "demo", settings.SWITCHYARD_DEMO_ADMIN_PASSWORD, Date.now());
  const setupSecret = await createSetupLink(store, Date.now());
  const token = await ensureIngestToken(store, settings.SWITCHYARD_INGEST_TOKEN, Date.now());
  // Secrets shown once to whoever started the server go to the terminal (stderr), never into the JSON log.
  if (token) {
    process.stderr.write(`Ingest token generated (shown only this once; keep it): ${token}\n`);
    log().info("ingest token generated and shown once on stderr");
  }
  return setupSecret;
}

/** Ingest's worker threads: they decode, validate and store bodies, on SQLite (IngestPool) or PostgreSQL (PgIngestPool). */
function ingestPool(settings: Env): { install: () => void; close: () => Promise<void> } | null {
  const n = ingestWorkers(settings);
  if (n === 0) return null;
  const url = settings.SWITCHYARD_DATABASE_URL;
  return url ? new PgIngestPool(url, n) : new IngestPool(settings.SWITCHYARD_DB, n);
}

/**
 * Start the work only the leader does — retention, attribution, the policy reconciler and guards, alert evaluation, scrapes and ZMQ
 * subscriptions, expired sign-in housekeeping, sealing PostgreSQL's chart chunks — and return the function that stops all of it.
 */
function startBackground({ db, pg, store }: ServerEngine, settings: Env): () => Promise<void> {
  const authSweep = setInterval(async () => {
    try {
      await deleteExpiredAuth(store, Date.now());
      await pruneLoginFailures(store, Date.now());
    } catch (err) {
      log().warn({ err: errorMessage(err) }, "auth housekeeping failed (next try in an hour)");
    }
  }, 3_600_000);
  authSweep.unref();
  const stopSweeper = startRetentionSweeper(
    retentionSweep(db, pg),
    { rawHours: settings.SWITCHYARD_RAW_RETENTION_HOURS, days: settings.SWITCHYARD_RETENTION_DAYS },
    settings.SWITCHYARD_RETENTION_SWEEP_SECONDS,
  );
  // PostgreSQL's chart chunks are sealed by the leader (db/pg/chart-chunks.ts); SQLite has none.
  const stopSealer = pg ? startChartSealer(pg.$client) : async () => {};
  const stopAttribution = startAttributionThread(
    settings.SWITCHYARD_DATABASE_URL ? { databaseUrl: settings.SWITCHYARD_DATABASE_URL } : settings.SWITCHYARD_DB,
    settings.SWITCHYARD_RAW_RETENTION_HOURS,
  );
  // The reconciler reads the versions from the shared store each pass: a version any process published is pushed here.
  const stopReconciler = startReconciler(store, defaultAdapters(), settings.SWITCHYARD_RECONCILE_SECONDS * 1000);
  const stopGuards = startGuardLoop(
    store,
    (span, cluster) => windowRows(store, span, cluster),
    Math.max(5_000, settings.SWITCHYARD_RECONCILE_SECONDS * 1000),
  );
  const stopAlerts = startAlertLoop(store, {
    everyMs: settings.SWITCHYARD_ALERT_EVALUATE_SECONDS * 1000,
    baseUrl: settings.SWITCHYARD_PUBLIC_URL ?? `http://localhost:${settings.PORT}`,
    send: outboundFetch,
  });
  const sources = startSources(serverIngest());
  // A source added or changed through another process reaches this one's manager on its next reload.
  const sourceReload = setInterval(() => void sources.then((m) => m.reload()), 5_000);
  sourceReload.unref();
  return async () => {
    clearInterval(authSweep);
    clearInterval(sourceReload);
    stopSweeper();
    await Promise.all([
      stopReconciler(),
      stopGuards(),
      stopAlerts(),
      sources.then((m) => m.stop()),
      stopAttribution(),
      stopSealer(),
    ]);
  };
}

/** GET /metrics, answered here rather than by a Next route: the page proxy would send a token-only scraper to sign-in. */
async function serveMetrics(
  store: Store,
  sqliteFile: string | null,
  req: http.IncomingMessage,
  res: http.ServerResponse,
) {
  try {
    const reply = await metricsReply(
      store,
      sqliteFile,
      { authorization: req.headers.authorization, cookie: req.headers.cookie },
      Date.now(),
    );
    res.writeHead(reply.status, reply.headers).end(reply.body);
  } catch (err) {
    log().error({ err: errorMessage(err) }, "metrics failed");
    res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "internal error" }));
  }
}

void main();
