import { describe, expect, it } from "vitest";
import { maskUrl } from "./mask-url";

describe("maskUrl", () => {
  it.each([
    ["postgres://sw:s3cret@db.example:5432/switchyard", "postgres://sw:***@db.example:5432/switchyard"],
    ["postgres://sw@db/x", "postgres://sw@db/x"],
    ["postgres://db/x?user=sw&password=s3cret", "postgres://db/x?user=sw&password=***"],
    ["postgres://sw:p%40ss@db/x", "postgres://sw:***@db/x"],
    ["postgres://sw:s3cret@[bad", "postgres://sw:***@[bad"],
    ["not a url password=s3cret", "not a url password=***"],
  ])("%s", (url, shown) => {
    expect(maskUrl(url)).toBe(shown);
    expect(maskUrl(url)).not.toContain("s3cret");
  });
});
