// `npm run test:pg`: the PostgreSQL suites (db/pg, *.pg.test.ts) against SWITCHYARD_TEST_DATABASE_URL, or against a
// throwaway server started here and removed afterwards when it is not set.
import { spawnSync } from "node:child_process";
import { startThrowawayPg, type ThrowawayPg } from "../test/pg-server";

async function main(): Promise<number> {
  let server: ThrowawayPg | null = null;
  let url = process.env.SWITCHYARD_TEST_DATABASE_URL;
  if (!url) {
    server = await startThrowawayPg({ durable: false });
    url = server.url;
    const started = server;
    for (const signal of ["SIGINT", "SIGTERM"] as const)
      process.once(signal, () => {
        started.stop();
        process.exit(1);
      });
    console.log("test:pg: started a throwaway PostgreSQL server");
  }
  try {
    const r = spawnSync("npx", ["vitest", "run", "db/pg", ".pg.test.ts", ...process.argv.slice(2)], {
      stdio: "inherit",
      env: { ...process.env, SWITCHYARD_TEST_DATABASE_URL: url },
    });
    return r.status ?? 1;
  } finally {
    server?.stop();
  }
}

void main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
