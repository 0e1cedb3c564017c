import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The layering rule of eslint.config.mjs over source strings: db/ may not import server/, lib/ neither server/ nor db/,
// pages and components only types from server/.

const eslint = new ESLint({ cwd: import.meta.dirname });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  if (result!.messages.some((m) => m.fatal)) return ["fatal"];
  return result!.messages.map((m) => m.ruleId ?? "none");
}

describe("layering lint", () => {
  it.each([
    ["a value import of server/ by a relative path", "db/sqlite/x.ts", 'import { a } from "../../server/analysis/x";'],
    ["a type-only import", "db/sqlite/x.ts", 'import type { T } from "../../server/analysis/x";'],
    ["the @/ alias", "db/sqlite/x.ts", 'import { env } from "@/server/env";'],
    ["a re-export", "db/sqlite/x.ts", 'export { a } from "../../server/control/targets";'],
    ["a star re-export from db/ itself", "db/x.ts", 'export * from "../server/x";'],
    ["server/ itself", "db/rows/x.ts", 'import s from "../../server";'],
    ["a db test file", "db/sqlite/x.test.ts", 'import { ingestBody } from "../../server/ingest/ingest";'],
    [
      "the ingest's store (no exceptions left)",
      "db/sqlite/ingest.ts",
      'import type { T } from "../../server/ingest/events";',
    ],
    ["the chain rows", "db/sqlite/chains.ts", 'import type { N } from "../../server/ingest/prefix";'],
    ["lib/ importing server/", "lib/x.ts", 'import { a } from "../server/analysis/x";'],
    ["lib/ importing db/", "lib/x.ts", 'import type { Db } from "../db/sqlite/client";'],
  ])("refuses %s", async (_, file, code) => {
    expect(await restricted(file, code)).toEqual(["no-restricted-imports"]);
  });

  it.each([
    [
      "db/ importing its rows, lib/ and packages",
      "db/sqlite/x.ts",
      'import type { R } from "../rows/x";\nimport { minuteOf } from "../../lib/counters";\nimport { eq } from "drizzle-orm";',
    ],
    ["a sibling whose name starts with server", "db/sqlite/x.ts", 'import { a } from "./server-side";'],
    ["a test helper", "db/sqlite/x.test.ts", 'import { testDb } from "../../test/db";'],
  ])("allows %s", async (_, file, code) => {
    expect(await restricted(file, code)).toEqual([]);
  });

  it("fails on a file that does not parse instead of passing it", async () => {
    expect(await restricted("db/sqlite/x.ts", "import { from ;")).toEqual(["fatal"]);
  });
});

describe("pages and components import only types from server/", () => {
  const rule = "@typescript-eslint/no-restricted-imports";
  /** Rules that fail the lint (a file no config covers only gets a warning, so it passes). */
  async function errors(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath });
    return result!.messages.filter((m) => m.fatal || m.severity === 2).map((m) => (m.fatal ? "fatal" : m.ruleId!));
  }

  it.each([
    ["a value import in a component", "components/ui/x.tsx", 'import { a } from "@/server/analysis/x";'],
    ["a relative path from a page", "app/x/page.tsx", 'import { a } from "../../server/control/x";'],
    [
      "a multi-line import mixing types and values",
      "components/views/x.tsx",
      'import {\n  a,\n  type B,\n} from "@/server/analysis/x";\nexport const c = <div>{a}</div>;',
    ],
    ["a side-effect import", "app/layout.tsx", 'import "@/server/runtime";'],
    ["a re-export", "components/x.ts", 'export { a } from "@/server/control/x";'],
    ["a star re-export of server/ itself", "app/x/page.tsx", 'export * from "@/server";'],
    ["another auth module", "app/admin/page.tsx", 'import { sessionActor } from "@/server/auth/sign-in-sessions";'],
    ["a name that only starts like page-user", "app/x/page.tsx", 'import { a } from "@/server/auth/page-user-x";'],
  ])("refuses %s", async (_, file, code) => {
    expect(await errors(file, code)).toEqual([rule]);
  });

  it.each([
    ["type-only imports", "components/ui/x.tsx", 'import type { T } from "@/server/analysis/x";'],
    ["inline type specifiers", "components/ui/x.tsx", 'import { type T, type U } from "../../server/analysis/x";'],
    ["a type-only re-export", "components/x.ts", 'export type { T } from "@/server/analysis/x";'],
    [
      "lib/ and packages",
      "components/ui/x.tsx",
      'import { parseRange } from "@/lib/time-range";\nimport { z } from "zod";',
    ],
    [
      "page-user in a server-component page",
      "app/admin/page.tsx",
      'import { pageUser } from "@/server/auth/page-user";',
    ],
    ["a route handler", "app/api/x/route.ts", 'import { serverEngine } from "@/server/runtime";'],
    ["a component test", "components/ui/x.test.tsx", 'import { serverEngine } from "@/server/runtime";'],
    ["a route test", "app/api/x/route.test.ts", 'import { serverEngine } from "@/server/runtime";'],
    ["route cases", "app/api/x/route.cases.ts", 'import { serverEngine } from "@/server/runtime";'],
    ["a route harness", "app/api/x/route-harness.ts", 'import { serverEngine } from "@/server/runtime";'],
  ])("allows %s", async (_, file, code) => {
    expect(await errors(file, code)).toEqual([]);
  });
});
