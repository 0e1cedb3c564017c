import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPg, PG_TEST_URL } from "../test/pg";
import { runDashboardToExit } from "../test/dashboard-start";
import { PG_NOT_YET } from "./engine-start";

describe.skipIf(!PG_TEST_URL)("dashboard start on a reachable PostgreSQL", () => {
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ url, drop } = await freshPg());
  });
  afterAll(() => drop?.());

  it("refuses to serve with one line saying what does not run on PostgreSQL yet, exit non-zero", async () => {
    const withPassword = new URL(url);
    withPassword.password = "not-shown-pw";
    const { code, lines } = await runDashboardToExit({ SWITCHYARD_DATABASE_URL: withPassword.toString() });
    expect(code).not.toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("SWITCHYARD_DATABASE_URL");
    expect(lines[0]).toContain(PG_NOT_YET);
    expect(lines[0]).not.toContain("not-shown-pw");
  }, 60_000);
});
