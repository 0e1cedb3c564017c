// `npm run import -- [--dashboard URL] [--token T] [--cluster NAME] [--format dynamo|mooncake] [--block-size N] [--start MS] FILE...`:
// post Dynamo trace files (dynamo.agent.trace.v1 / dynamo.fpm.trace.v1) or Mooncake-format traces (`--format mooncake`,
// `--block-size` tokens per hash id, default 512; `--start` the Unix ms of the trace's time zero), JSONL or gzip JSONL,
// to a running dashboard's /api/import, one file per request.
// Raw files are posted rather than events parsed here: one parser on the server (the same as uploads and watched
// directories, with the database at hand for load samples), and gzip stays compressed on the wire.
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import type { ImportSummary } from "../server/sources/dynamo-trace/import";

process.env.NEXT_TELEMETRY_DISABLED = "1";

type Args = {
  dashboard: string;
  token: string | undefined;
  files: string[];
  format: "dynamo" | "mooncake";
  blockSize: number | null;
  start: number | null;
  cluster: string | null;
};

const USAGE =
  "usage: npm run import -- [--dashboard URL] [--token T] [--cluster NAME] [--format dynamo|mooncake] [--block-size N] [--start <Unix ms>] FILE...";

/** Parse the command line; throws with a usage note on a bad flag. */
function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): Args {
  const out: Args = {
    dashboard: env.SWITCHYARD_DASHBOARD ?? "http://localhost:3000",
    token: env.SWITCHYARD_INGEST_TOKEN,
    files: [],
    format: "dynamo",
    blockSize: null,
    start: null,
    cluster: null,
  };
  const int = (flag: string, v: string, min: number): number => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`${flag} takes an integer of at least ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (["--dashboard", "--token", "--format", "--block-size", "--start", "--cluster"].includes(a)) {
      const v = argv[++i];
      if (!v) throw new Error(`${a} needs a value`);
      if (a === "--dashboard") out.dashboard = v;
      else if (a === "--token") out.token = v;
      else if (a === "--cluster") out.cluster = v;
      else if (a === "--format") {
        if (v !== "dynamo" && v !== "mooncake") throw new Error("--format takes dynamo or mooncake");
        out.format = v;
      } else if (a === "--block-size") out.blockSize = int(a, v, 1);
      else out.start = int(a, v, 0);
    } else if (a.startsWith("--")) throw new Error(`unknown option ${a}`);
    else out.files.push(a);
  }
  if (out.files.length === 0) throw new Error("no trace files given");
  if (out.format !== "mooncake" && (out.blockSize !== null || out.start !== null))
    throw new Error("--block-size and --start are for --format mooncake");
  return out;
}

/** Post one file with upload progress; resolves with the server's summary or rejects with its error. */
function postFile(file: string, args: Args, onProgress: (sent: number, total: number) => void): Promise<ImportSummary> {
  const total = fs.statSync(file).size;
  const url = new URL("/api/import", args.dashboard);
  if (args.cluster !== null) url.searchParams.set("cluster", args.cluster);
  if (args.format === "mooncake") {
    url.searchParams.set("format", "mooncake");
    if (args.blockSize !== null) url.searchParams.set("block_size", String(args.blockSize));
    if (args.start !== null) url.searchParams.set("start", String(args.start));
  }
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: "POST",
      headers: {
        "content-type": "application/octet-stream",
        "content-length": String(total),
        "x-switchyard-filename": encodeURIComponent(path.basename(file)),
        ...(args.token && { authorization: `Bearer ${args.token}` }),
      },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => {
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          return reject(new Error(`HTTP ${res.statusCode}: ${body.slice(0, 200)}`));
        }
        if (res.statusCode !== 200)
          return reject(
            new Error(`HTTP ${res.statusCode}: ${(json as { error?: string }).error ?? body.slice(0, 200)}`),
          );
        resolve(json as ImportSummary);
      });
    });
    req.on("error", (err) => reject(new Error(`cannot reach ${args.dashboard}: ${err.message}`)));
    let sent = 0;
    const stream = fs.createReadStream(file);
    stream.on("data", (chunk) => {
      sent += chunk.length;
      onProgress(sent, total);
    });
    stream.on("error", reject);
    stream.pipe(req);
  });
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`import: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  let failed = 0;
  for (const file of args.files) {
    const tty = process.stderr.isTTY;
    let last = 0;
    try {
      const s = await postFile(file, args, (sent, total) => {
        const now = Date.now();
        if (sent < total && now - last < 250) return;
        last = now;
        const line = `${path.basename(file)}: ${mib(sent)} / ${mib(total)} sent (${total ? Math.floor((sent / total) * 100) : 100}%)`;
        process.stderr.write(tty ? `\r${line}` : `${line}\n`);
      });
      if (tty) process.stderr.write("\n");
      console.log(
        `${file}: ${s.records} records, ${s.accepted} accepted, ${s.duplicate} already imported, ${s.rejected} rejected, ${s.badLines} bad lines` +
          (s.gaps ? `, ${s.gaps} FPM counter gaps` : ""),
      );
      for (const e of s.errors.slice(0, 5)) console.log(`  line ${e.line}: ${e.message}`);
      if (s.fatal) {
        console.log(`  error: ${s.fatal}`);
        failed++;
      } else if (s.records > 0 && s.accepted + s.duplicate === 0) failed++;
    } catch (err) {
      if (tty) process.stderr.write("\n");
      console.error(`${file}: ${(err as Error).message}`);
      failed++;
    }
  }
  return failed ? 1 : 0;
}

main().then((code) => process.exit(code));
