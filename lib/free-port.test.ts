import net from "node:net";
import { describe, expect, it } from "vitest";
import { cannotListen, freePort } from "./free-port";

describe("cannotListen", () => {
  it("is null for a free port and names EADDRINUSE for one a server holds, on its host and on all interfaces", async () => {
    const port = await freePort();
    expect(await cannotListen(port, "127.0.0.1")).toBeNull();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(port, "0.0.0.0", resolve));
    try {
      expect(await cannotListen(port, "127.0.0.1")).toBe("EADDRINUSE");
      expect(await cannotListen(port, "0.0.0.0")).toBe("EADDRINUSE");
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    // Free again once the holder closed: the check itself leaves nothing listening.
    expect(await cannotListen(port, "0.0.0.0")).toBeNull();
    expect(await cannotListen(port, "0.0.0.0")).toBeNull();
  });
});
