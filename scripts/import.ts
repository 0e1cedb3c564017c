// `npm run import -- [--dashboard URL] [--token T] FILE...`: post Dynamo trace files (dynamo.agent.trace.v1 /
// dynamo.fpm.trace.v1, JSONL or gzip JSONL) to a running dashboard's /api/import, one file per request.
// Raw files are posted rather than events parsed here: one parser on the server (the same as uploads and watched
// directories, with the database at hand for load samples), and gzip stays compressed on the wire.
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import type { ImportSummary } from "../server/sources/dynamo-trace/import";

process.env.NEXT_TELEMETRY_DISABLED = "1";

type Args = { dashboard: string; token: string | undefined; files: string[] };

/** Parse the command line; throws with a usage note on a bad flag. */
function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): Args {
  const out: Args = {
    dashboard: env.SWITCHYARD_DASHBOARD ?? "http://localhost:3000",
    token: env.SWITCHYARD_INGEST_TOKEN,
    files: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--dashboard" || a === "--token") {
      const v = argv[++i];
      if (!v) throw new Error(`${a} needs a value`);
      if (a === "--dashboard") out.dashboard = v;
      else out.token = v;
    } else if (a.startsWith("--")) throw new Error(`unknown option ${a}`);
    else out.files.push(a);
  }
  if (out.files.length === 0) throw new Error("no trace files given");
  return out;
}

/** Post one file with upload progress; resolves with the server's summary or rejects with its error. */
function postFile(file: string, args: Args, onProgress: (sent: number, total: number) => void): Promise<ImportSummary> {
  const total = fs.statSync(file).size;
  const url = new URL("/api/import", args.dashboard);
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
    console.error(`import: ${(err as Error).message}\nusage: npm run import -- [--dashboard URL] [--token T] FILE...`);
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
