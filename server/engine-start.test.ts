import net from "node:net";
import { describe, expect, it } from "vitest";
import { runDashboardToExit } from "../test/dashboard-start";

/** A local port with nothing listening (bound, then closed). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

describe("dashboard start with SWITCHYARD_DATABASE_URL", () => {
  it("exits non-zero with one line naming the setting, password masked, when PostgreSQL is unreachable", async () => {
    const port = await closedPort();
    const url = `postgres://switchyard:s3cret-pw@127.0.0.1:${port}/switchyard`;
    const { code, lines } = await runDashboardToExit({ SWITCHYARD_DATABASE_URL: url });
    expect(code).not.toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("SWITCHYARD_DATABASE_URL");
    expect(lines[0]).toContain(`postgres://switchyard:***@127.0.0.1:${port}/switchyard`);
    expect(lines[0]).toContain("ECONNREFUSED");
    expect(lines.join("\n")).not.toContain("s3cret-pw");
  }, 60_000);

  it("exits non-zero with one line when the URL is not a PostgreSQL URL, password masked", async () => {
    const { code, lines } = await runDashboardToExit({ SWITCHYARD_DATABASE_URL: "mysql://sw:s3cret-pw@db/x" });
    expect(code).not.toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("SWITCHYARD_DATABASE_URL");
    expect(lines.join("\n")).not.toContain("s3cret-pw");
  }, 60_000);
});
