import { describe, expect, it } from "vitest";
import { SQLITE } from "../../test/stores";
import { devicesCases } from "./devices.cases";
import { deviceCookie } from "./devices";

// Known devices on SQLite (the same cases run on PostgreSQL in devices.pg.test.ts), and their cookie.

describe("the known-device cookie", () => {
  it("is httpOnly, SameSite=Lax, sent only to the sign-in route, Secure only behind https", () => {
    expect(deviceCookie("v", 1_800_000_000_000, false)).toMatch(
      /^sy_device=v; Path=\/api\/auth\/login; HttpOnly; SameSite=Lax; Expires=.+GMT$/,
    );
    expect(deviceCookie("v", 1_800_000_000_000, true)).toMatch(/; Secure$/);
  });
});

devicesCases(SQLITE);
