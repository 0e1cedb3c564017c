import { describe, expect, it } from "vitest";
import { checkRelativeName, describePathRule, type PathRule } from "./relative-name";

describe("checkRelativeName", () => {
  it.each<[string, string, PathRule]>([
    ["absolute", "/etc/passwd", "absolute"],
    ["absolute with .. (the probe)", "/tmp/x/../victim", "absolute"],
    [".. first", "../victim", "parent"],
    [".. in the middle", "a/../../b", "parent"],
    [".. that stays inside is still refused", "a/../b", "parent"],
    [".. last", "team/..", "parent"],
    ["empty", "", "empty"],
    ["only dots and slashes", "./", "empty"],
    ["NUL", "planner.json\u0000.txt", "control"],
    ["newline", "plan\nner.json", "control"],
    ["backslash", "..\\victim", "backslash"],
  ])("refuses %s (%j) by the %s rule", (_, name, rule) => {
    expect(checkRelativeName(name)).toEqual({ ok: false, rule });
  });

  it.each([
    ["planner.json", ["planner.json"]],
    ["team/planner.json", ["team", "planner.json"]],
    ["./team//planner.json", ["team", "planner.json"]],
    ["..planner.json", ["..planner.json"]],
  ])("takes %j as %j", (name, parts) => {
    expect(checkRelativeName(name)).toEqual({ ok: true, parts });
  });

  it('takes "." as the folder itself for a folder, never for a file', () => {
    expect(checkRelativeName(".", "folder")).toEqual({ ok: true, parts: [] });
    expect(checkRelativeName(".", "file")).toEqual({ ok: false, rule: "empty" });
    expect(checkRelativeName("", "folder")).toEqual({ ok: false, rule: "empty" });
  });
});

describe("describePathRule", () => {
  const target = { field: "config.path", setting: "SWITCHYARD_TARGET_DIR", what: "file" as const };
  it.each<[PathRule, RegExp]>([
    ["absolute", /^config\.path: must be a relative file name inside SWITCHYARD_TARGET_DIR \(no absolute path\)$/],
    ["parent", /inside SWITCHYARD_TARGET_DIR \(no "\.\." component\)$/],
    ["control", /inside SWITCHYARD_TARGET_DIR \(no NUL/],
    ["backslash", /inside SWITCHYARD_TARGET_DIR \(no backslash/],
    ["symlink", /inside SWITCHYARD_TARGET_DIR \(no symbolic link/],
    ["not-folder", /is a file, not a folder/],
    ["not-file", /not a regular file/],
    ["protected", /SWITCHYARD_DB, its -wal, -shm or -journal/],
    ["folder-link", /^config\.path: SWITCHYARD_TARGET_DIR must be a real folder, not a symbolic link/],
    ["empty", /^config\.path: must name a file inside SWITCHYARD_TARGET_DIR$/],
  ])("%s names its rule and the setting", (rule, message) => {
    expect(describePathRule(rule, target)).toMatch(message);
  });
});
