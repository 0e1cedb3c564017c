import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runDashboardToExit } from "../../test/dashboard-start";
import { KEY_FILE_NAME } from "./secret-box";

// The dashboard refuses to start, in one line and before it opens a database, without a usable secret key.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("dashboard start without a usable secret key", () => {
  it("on PostgreSQL without SWITCHYARD_SECRET_KEY: one line naming it and how to make one", async () => {
    const { code, lines } = await runDashboardToExit({
      SWITCHYARD_DATABASE_URL: "postgres://switchyard:s3cret-pw@127.0.0.1:1/switchyard",
      SWITCHYARD_SECRET_KEY: "",
    });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("SWITCHYARD_SECRET_KEY is required on PostgreSQL");
    expect(lines[0]).toContain("openssl rand -hex 32");
    expect(lines[0]).not.toContain("s3cret-pw");
  }, 60_000);

  it("on SQLite with a key file others may read: one line naming the file and the fix, the file unchanged", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-key-start-"));
    dirs.push(dir);
    const file = path.join(dir, KEY_FILE_NAME);
    fs.writeFileSync(file, `${"ab".repeat(32)}\n`);
    fs.chmodSync(file, 0o644);
    const { code, lines } = await runDashboardToExit({
      SWITCHYARD_DB: path.join(dir, "switchyard.db"),
      SWITCHYARD_SECRET_KEY: "",
    });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`chmod 600 ${file}`);
    expect(lines[0]).not.toContain("ab".repeat(32));
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    expect(fs.readdirSync(dir)).toEqual([KEY_FILE_NAME]);
  }, 60_000);
});
