import { describe, expect, it } from "vitest";
import { isBusy } from "./client";

describe("isBusy", () => {
  it.each<[string, unknown, boolean]>([
    ["SQLITE_BUSY", { code: "SQLITE_BUSY" }, true],
    ["an extended busy code (stale WAL snapshot)", { code: "SQLITE_BUSY_SNAPSHOT" }, true],
    ["SQLITE_LOCKED", { code: "SQLITE_LOCKED" }, true],
    ["a constraint error", { code: "SQLITE_CONSTRAINT_PRIMARYKEY" }, false],
    ["an error without a code", new Error("x"), false],
    ["null", null, false],
    ["a numeric code", { code: 5 }, false],
  ])("%s → %s", (_name, err, expected) => {
    expect(isBusy(err)).toBe(expected);
  });
});
