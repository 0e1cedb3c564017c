import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The layering rule of eslint.config.mjs over source strings: db/ may not import server/, lib/ neither server/ nor db/.

const eslint = new ESLint({ cwd: import.meta.dirname });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  if (result!.messages.some((m) => m.fatal)) return ["fatal"];
  return result!.messages.map((m) => m.ruleId ?? "none");
}

describe("layering lint", () => {
  it.each([
    ["a value import of server/ by a relative path", "db/queries/x.ts", 'import { a } from "../../server/analysis/x";'],
    ["a type-only import", "db/queries/x.ts", 'import type { T } from "../../server/analysis/x";'],
    ["the @/ alias", "db/queries/x.ts", 'import { env } from "@/server/env";'],
    ["a re-export", "db/queries/x.ts", 'export { a } from "../../server/control/targets";'],
    ["a star re-export from db/ itself", "db/x.ts", 'export * from "../server/x";'],
    ["server/ itself", "db/rows/x.ts", 'import s from "../../server";'],
    ["a db test file", "db/queries/x.test.ts", 'import { ingestBody } from "../../server/ingest/ingest";'],
    [
      "the ingest's store (no exceptions left)",
      "db/queries/ingest.ts",
      'import type { T } from "../../server/ingest/events";',
    ],
    ["the chain rows", "db/queries/chains.ts", 'import type { N } from "../../server/ingest/prefix";'],
    ["lib/ importing server/", "lib/x.ts", 'import { a } from "../server/analysis/x";'],
    ["lib/ importing db/", "lib/x.ts", 'import type { Db } from "../db/client";'],
  ])("refuses %s", async (_, file, code) => {
    expect(await restricted(file, code)).toEqual(["no-restricted-imports"]);
  });

  it.each([
    [
      "db/ importing its rows, lib/ and packages",
      "db/queries/x.ts",
      'import type { R } from "../rows/x";\nimport { minuteOf } from "../../lib/counters";\nimport { eq } from "drizzle-orm";',
    ],
    ["a sibling whose name starts with server", "db/queries/x.ts", 'import { a } from "./server-side";'],
    ["a test helper", "db/queries/x.test.ts", 'import { testDb } from "../../test/db";'],
  ])("allows %s", async (_, file, code) => {
    expect(await restricted(file, code)).toEqual([]);
  });

  it("fails on a file that does not parse instead of passing it", async () => {
    expect(await restricted("db/queries/x.ts", "import { from ;")).toEqual(["fatal"]);
  });
});
