import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  ConfinedPathError,
  databaseFiles,
  inspectConfinedFile,
  inspectConfinedFolder,
  writeFileConfined,
  type Confinement,
} from "./confined-path";
import type { PathRule } from "./relative-name";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A temp folder by its real path, with a target folder in it holding the database, and a folder outside it. */
function setup() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "confined-")));
  made.push(root);
  const base = path.join(root, "targets");
  const outside = path.join(root, "outside");
  fs.mkdirSync(base);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "victim"), "victim\n");
  const db = path.join(base, "switchyard.db");
  for (const f of [db, `${db}-wal`, `${db}-shm`, path.join(base, "secret.key")]) fs.writeFileSync(f, "keep\n");
  const c: Confinement = {
    folder: base,
    field: "config.path",
    setting: "SWITCHYARD_TARGET_DIR",
    protectedFiles: databaseFiles(db),
  };
  return { root, base, outside, db, c };
}

async function refusal(p: Promise<unknown>): Promise<ConfinedPathError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfinedPathError);
  return err as ConfinedPathError;
}

/** Every file under a folder with its content, links as "-> target". */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, name);
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) out[name] = `-> ${fs.readlinkSync(p)}`;
    else if (st.isFile()) out[name] = fs.readFileSync(p, "utf8");
  }
  return out;
}

describe("writeFileConfined refusals", () => {
  it.each<[string, (s: ReturnType<typeof setup>) => string, PathRule, RegExp]>([
    ["an absolute path", (s) => path.join(s.outside, "victim"), "absolute", /no absolute path/],
    ["the probe's <any>/../victim", (s) => `${s.base}/../outside/victim`, "absolute", /no absolute path/],
    ["a/../../b", () => "a/../../outside/victim", "parent", /no "\.\." component/],
    ["an empty name", () => "", "empty", /must name a file inside SWITCHYARD_TARGET_DIR/],
    ["a NUL", () => "planner\u0000.json", "control", /no NUL/],
    ["a backslash", () => "..\\outside\\victim", "backslash", /no backslash/],
    ["the database", () => "switchyard.db", "protected", /SWITCHYARD_DB/],
    ["its WAL", () => "./switchyard.db-wal", "protected", /-wal/],
    ["its shared memory file", () => "switchyard.db-shm", "protected", /-shm/],
    ["its rollback journal (not there yet)", () => "switchyard.db-journal", "protected", /-journal/],
    ["the secret key beside it", () => "secret.key", "protected", /secret key file/],
    [
      "a symlinked folder on the way",
      (s) => (fs.symlinkSync(s.outside, path.join(s.base, "team")), "team/victim"),
      "symlink",
      /no symbolic link/,
    ],
    [
      "an existing symlink at the final name",
      (s) => (fs.symlinkSync(path.join(s.outside, "victim"), path.join(s.base, "planner.json")), "planner.json"),
      "symlink",
      /no symbolic link/,
    ],
    [
      "a dangling symlink at the final name",
      (s) => (fs.symlinkSync(path.join(s.outside, "new"), path.join(s.base, "planner.json")), "planner.json"),
      "symlink",
      /no symbolic link/,
    ],
    ["a folder at the final name", (s) => (fs.mkdirSync(path.join(s.base, "team")), "team"), "not-file", /folder/],
    [
      "a file where a folder should be",
      (s) => (fs.writeFileSync(path.join(s.base, "team"), "x"), "team/planner.json"),
      "not-folder",
      /is a file, not a folder/,
    ],
  ])("refuses %s by its rule, writing nothing", async (_, name, rule, message) => {
    const s = setup();
    const n = name(s);
    const before = snapshot(s.root);
    const err = await refusal(writeFileConfined(s.c, n, "{}\n"));
    expect(err.rule).toBe(rule);
    expect(err.message).toMatch(/^config\.path: /);
    expect(err.message).toMatch(message);
    expect(snapshot(s.root)).toEqual(before);
  });

  it("refuses a folder setting that is a symbolic link, naming the setting", async () => {
    const s = setup();
    fs.symlinkSync(s.outside, path.join(s.root, "linked"));
    const err = await refusal(writeFileConfined({ ...s.c, folder: path.join(s.root, "linked") }, "victim", "{}"));
    expect(err.rule).toBe("folder-link");
    expect(err.message).toMatch(/SWITCHYARD_TARGET_DIR must be a real folder/);
    expect(fs.readFileSync(path.join(s.outside, "victim"), "utf8")).toBe("victim\n");
  });

  it("decides an outside name on the string alone, before touching the folder", async () => {
    const s = setup();
    const unusable = { ...s.c, folder: path.join(s.outside, "victim", "sub") };
    expect((await refusal(writeFileConfined(unusable, "/root/.ssh/authorized_keys", "x"))).rule).toBe("absolute");
    await expect(writeFileConfined(unusable, "fine.json", "x")).rejects.toMatchObject({ code: "ENOTDIR" });
  });
});

describe("writeFileConfined", () => {
  it("writes a nested name, making its folder, replacing the file and leaving no temp file", async () => {
    const s = setup();
    await writeFileConfined(s.c, "team/planner.json", "one\n");
    await writeFileConfined(s.c, "team/planner.json", "two\n");
    expect(fs.readFileSync(path.join(s.base, "team", "planner.json"), "utf8")).toBe("two\n");
    expect(fs.readdirSync(path.join(s.base, "team"))).toEqual(["planner.json"]);
  });

  it("creates the configured folder when it is missing", async () => {
    const s = setup();
    const c = { ...s.c, folder: path.join(s.root, "new", "targets") };
    await writeFileConfined(c, "planner.json", "{}\n");
    expect(fs.readFileSync(path.join(s.root, "new", "targets", "planner.json"), "utf8")).toBe("{}\n");
  });

  it("writes a file in a subfolder named like the database, leaving the database alone", async () => {
    const s = setup();
    await writeFileConfined(s.c, "team/switchyard.db", "{}\n");
    expect(fs.readFileSync(s.db, "utf8")).toBe("keep\n");
  });
});

describe("inspectConfinedFile and inspectConfinedFolder", () => {
  it("says where a name lands without making anything", async () => {
    const s = setup();
    expect(await inspectConfinedFile(s.c, "a/b/planner.json")).toEqual({
      dir: path.join(s.base, "a", "b"),
      file: path.join(s.base, "a", "b", "planner.json"),
    });
    expect(fs.existsSync(path.join(s.base, "a"))).toBe(false);
  });

  it("finds a folder, says when it does not exist yet, and refuses links and files", async () => {
    const s = setup();
    const c = { ...s.c, setting: "SWITCHYARD_IMPORT_DIR" };
    fs.mkdirSync(path.join(s.base, "traces"));
    expect(await inspectConfinedFolder(c, "traces")).toEqual({ dir: path.join(s.base, "traces"), exists: true });
    expect(await inspectConfinedFolder(c, ".")).toEqual({ dir: s.base, exists: true });
    expect(await inspectConfinedFolder(c, "later/x")).toEqual({ dir: path.join(s.base, "later", "x"), exists: false });
    fs.symlinkSync(s.outside, path.join(s.base, "ssh"));
    expect((await refusal(inspectConfinedFolder(c, "ssh"))).rule).toBe("symlink");
    expect((await refusal(inspectConfinedFolder(c, "ssh/deeper"))).rule).toBe("symlink");
    const file = await refusal(inspectConfinedFolder(c, "secret.key"));
    expect([file.rule, file.message]).toEqual([
      "not-file",
      "config.path: must be a relative folder name inside SWITCHYARD_IMPORT_DIR (it names a file, not a folder)",
    ]);
  });

  it("refuses /root/.ssh and /nonexistent with one message", async () => {
    const s = setup();
    const c = { ...s.c, setting: "SWITCHYARD_IMPORT_DIR" };
    const [a, b] = [
      await refusal(inspectConfinedFolder(c, "/root/.ssh")),
      await refusal(inspectConfinedFolder(c, "/nonexistent")),
    ];
    expect(a.message).toBe(b.message);
    expect(a.message).toBe(
      "config.path: must be a relative folder name inside SWITCHYARD_IMPORT_DIR (no absolute path)",
    );
  });
});

describe("databaseFiles", () => {
  it("lists the database, its -wal, -shm and -journal and the key file, by resolved and real folder", () => {
    const s = setup();
    fs.symlinkSync(s.base, path.join(s.root, "via-link"));
    const files = databaseFiles(path.join(s.root, "via-link", "switchyard.db"));
    for (const f of ["switchyard.db", "switchyard.db-wal", "switchyard.db-shm", "switchyard.db-journal", "secret.key"])
      expect(files).toEqual(expect.arrayContaining([path.join(s.base, f), path.join(s.root, "via-link", f)]));
  });
});
