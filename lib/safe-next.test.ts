import { describe, expect, it } from "vitest";
import { safeNext } from "./safe-next";

const ORIGIN = "https://ops.example:8443";

describe("safeNext", () => {
  it.each<[string, string | null | undefined, string]>([
    ["no value", null, "/"],
    ["an empty value", "", "/"],
    ["a page", "/workers", "/workers"],
    ["a page with query and fragment", "/sessions?range=1h#turn-3", "/sessions?range=1h#turn-3"],
    ["a relative path", "workers", "/workers"],
    ["a tab between the slashes (browsers drop it: //evil.example)", "/\t/evil.example", "/"],
    ["a newline between the slashes", "/\n/evil.example", "/"],
    ["a percent-encoded tab stays a path on this origin", "/%09/evil.example", "/%09/evil.example"],
    ["protocol-relative", "//evil.example", "/"],
    ["protocol-relative with a path", "//evil.example/login", "/"],
    ["a backslash (read as a slash)", "/\\evil.example", "/"],
    ["two backslashes", "\\\\evil.example", "/"],
    ["another origin", "https://evil.example/", "/"],
    ["this host on another scheme", "http://ops.example:8443/", "/"],
    ["this host on another port", "https://ops.example/", "/"],
    ["this origin, absolute", "https://ops.example:8443/planner?x=1", "/planner?x=1"],
    ["javascript:", "javascript:alert(1)", "/"],
    ["javascript: with a leading space and tab", " \tjavascript:alert(1)", "/"],
    ["data:", "data:text/html,<script>alert(1)</script>", "/"],
    ["a path whose dot segment leaves //host", "/.//evil.example", "/"],
    ["a path whose .. segment leaves //host", "/a/..//evil.example", "/"],
    ["userinfo on another host", "https://ops.example:8443@evil.example/", "/"],
    ["a value the URL parser refuses", "http://[::1", "/"],
  ])("%s", (_, next, want) => {
    expect(safeNext(next, ORIGIN)).toBe(want);
  });

  it("the probe's query value, decoded as the sign-in page reads it, goes home", () => {
    const next = new URLSearchParams("next=%2F%09%2Fevil.example").get("next");
    expect(next).toBe("/\t/evil.example");
    expect(safeNext(next, ORIGIN)).toBe("/");
  });

  it("a malformed origin sends every value home", () => {
    expect(safeNext("/workers", "not a url")).toBe("/");
  });
});
