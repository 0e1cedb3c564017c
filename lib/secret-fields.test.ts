import { describe, expect, it } from "vitest";
import { keepStoredSecrets, originChange, redactSecrets, SECRET_MARKER } from "./secret-fields";

describe("originChange", () => {
  it.each<[string, unknown, unknown, string | null]>([
    ["same URL", "http://a:8000/x", "http://a:8000/x", null],
    ["another path", "http://a:8000/x", "http://a:8000/y/z", null],
    ["the default port written out (http)", "http://a/x", "http://a:80/x", null],
    ["the default port written out (https)", "https://a:443", "https://a/", null],
    ["host case", "http://A.example/x", "http://a.example/x", null],
    ["another host", "http://a:8000", "http://b:8000", "the URL's host changed"],
    ["an address for the name", "http://localhost:8000", "http://127.0.0.1:8000", "the URL's host changed"],
    ["another port", "http://a:8000", "http://a:8001", "the URL's port changed"],
    ["an explicit non-default port", "http://a", "http://a:8080", "the URL's port changed"],
    ["http to https", "http://a", "https://a", "the URL's scheme changed"],
    ["http:80 to https:80", "http://a:80", "https://a:80", "the URL's scheme changed"],
    ["no stored URL", undefined, "http://a", "the URL's host changed"],
    ["not a URL", "http://a", "a:b", "the URL's scheme changed"],
    ["not a string", "http://a", 5, "the URL's host changed"],
  ])("%s", (_name, before, after, change) => expect(originChange(before, after)).toBe(change));
});

describe("keepStoredSecrets", () => {
  const stored = { url: "http://a:8000/ctl", token: "enc:v1:stored" };
  it.each<[string, Record<string, unknown>, Record<string, unknown> | null, unknown]>([
    [
      "the marker on the same origin keeps the stored value",
      { url: "http://a:8000/other", token: SECRET_MARKER },
      stored,
      { ok: true, config: { url: "http://a:8000/other", token: "enc:v1:stored" }, kept: ["token"] },
    ],
    [
      "a new token is taken as sent",
      { url: "http://b:8000", token: "new" },
      stored,
      { ok: true, config: { url: "http://b:8000", token: "new" }, kept: [] },
    ],
    [
      "the marker to another host is refused",
      { url: "http://b:8000/ctl", token: SECRET_MARKER },
      stored,
      { ok: false, field: "token", message: "enter the token again: the URL's host changed" },
    ],
    [
      "the marker to another port is refused",
      { url: "http://a:9000/ctl", token: SECRET_MARKER },
      stored,
      { ok: false, field: "token", message: "enter the token again: the URL's port changed" },
    ],
    [
      "the marker with nothing stored is refused",
      { url: "http://a:8000/ctl", token: SECRET_MARKER },
      null,
      { ok: false, field: "token", message: "enter the token: none is stored" },
    ],
    [
      "no secret field: unchanged",
      { url: "http://b:8000" },
      stored,
      { ok: true, config: { url: "http://b:8000" }, kept: [] },
    ],
  ])("%s", (_name, config, before, expected) => expect(keepStoredSecrets(config, before, ["token"])).toEqual(expected));
});

describe("redactSecrets", () => {
  it("replaces present secret fields only", () => {
    expect(redactSecrets({ url: "http://a", token: "enc:v1:x", other: "y" }, ["token", "bearer_token"])).toEqual({
      url: "http://a",
      token: SECRET_MARKER,
      other: "y",
    });
  });
});
