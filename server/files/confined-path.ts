import { randomBytes } from "node:crypto";
import fs, { constants } from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { KEY_FILE_NAME } from "../auth/secret-box";
import { checkRelativeName, describePathRule, type PathRule } from "./relative-name";

export { checkRelativeName, describePathRule, type PathRule };

/** One configured folder that names are confined to (field and setting name the refusals), and files never written. */
export type Confinement = { folder: string; field: string; setting: string; protectedFiles?: readonly string[] };
type What = "file" | "folder";

/** A name refused by a rule; its message names the field, the rule and the setting, never a path outside. */
export class ConfinedPathError extends Error {
  constructor(
    readonly rule: PathRule,
    message: string,
  ) {
    super(message);
    this.name = "ConfinedPathError";
  }
}

const refuse = (rule: PathRule, c: Confinement, what: What) =>
  new ConfinedPathError(rule, describePathRule(rule, { field: c.field, setting: c.setting, what }));

/** The parts of a name, or a refusal decided on the string alone (before any filesystem access). */
export function namePartsOrThrow(c: Confinement, name: string, what: What): string[] {
  const checked = checkRelativeName(name, what);
  if (!checked.ok) throw refuse(checked.rule, c, what);
  return checked.parts;
}

/** The configured folder's real path, created when missing; refused when it is or passes through a symbolic link. */
export async function confinedFolder(c: Confinement): Promise<string> {
  const resolved = path.resolve(c.folder);
  try {
    await fsp.mkdir(resolved, { recursive: true });
  } catch (err) {
    if ((await lstatOrNull(resolved))?.isSymbolicLink()) throw refuse("folder-link", c, "folder");
    throw err;
  }
  if ((await fsp.realpath(resolved)) !== resolved) throw refuse("folder-link", c, "folder");
  return resolved;
}

async function lstatOrNull(p: string): Promise<fs.Stats | null> {
  try {
    return await fsp.lstat(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

// Each folder part under base by lstat: a link or a file is refused; a missing one is made when `create`, else the
// walk stops there (the rest does not exist yet).
async function walkFolders(
  c: Confinement,
  base: string,
  parts: readonly string[],
  opts: { create: boolean; what: What },
): Promise<{ dir: string; exists: boolean }> {
  let dir = base;
  for (const [i, part] of parts.entries()) {
    const next = path.join(dir, part);
    let st = await lstatOrNull(next);
    if (!st && opts.create) {
      await fsp.mkdir(next).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "EEXIST") throw err;
      });
      st = await lstatOrNull(next);
    }
    if (!st) return { dir: path.join(next, ...parts.slice(i + 1)), exists: false };
    if (st.isSymbolicLink()) throw refuse("symlink", c, opts.what);
    const last = opts.what === "folder" && i === parts.length - 1;
    if (!st.isDirectory()) throw refuse(last ? "not-file" : "not-folder", c, opts.what);
    dir = next;
  }
  return { dir, exists: true };
}

/**
 * Where a file name lands inside the folder, checked against the rules and against what is on disk now: no link at
 * any part, not a folder, not a protected file. Missing folders on the way are made when `create`.
 */
export async function inspectConfinedFile(
  c: Confinement,
  name: string,
  create = false,
): Promise<{ file: string; dir: string }> {
  const parts = namePartsOrThrow(c, name, "file");
  const base = await confinedFolder(c);
  const lexical = path.join(base, ...parts);
  if ((c.protectedFiles ?? []).includes(lexical)) throw refuse("protected", c, "file");
  const { dir, exists } = await walkFolders(c, base, parts.slice(0, -1), { create, what: "file" });
  const file = path.join(dir, parts.at(-1)!);
  const st = exists ? await lstatOrNull(file) : null;
  if (st?.isSymbolicLink()) throw refuse("symlink", c, "file");
  if (st && !st.isFile()) throw refuse("not-file", c, "file");
  return { file, dir };
}

/** A folder name's path inside the configured folder and whether it exists yet; refused by rule otherwise. */
export async function inspectConfinedFolder(c: Confinement, name: string): Promise<{ dir: string; exists: boolean }> {
  const parts = namePartsOrThrow(c, name, "folder");
  return walkFolders(c, await confinedFolder(c), parts, { create: false, what: "folder" });
}

const CREATE_NEW = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;

/**
 * Replace a file inside the folder atomically: a new temp file beside it (never following a link), then a rename over
 * the name once it is checked again. Throws ConfinedPathError for a refused name; nothing is written then.
 */
export async function writeFileConfined(c: Confinement, name: string, text: string): Promise<void> {
  const { file, dir } = await inspectConfinedFile(c, name, true);
  const temp = path.join(dir, `.switchyard-${randomBytes(6).toString("hex")}.tmp`);
  const handle = await fsp.open(temp, CREATE_NEW, 0o666);
  try {
    try {
      await handle.writeFile(text, "utf8");
    } finally {
      await handle.close();
    }
    const again = await inspectConfinedFile(c, name);
    if (again.file !== file) throw refuse("symlink", c, "file");
    await fsp.rename(temp, file);
  } catch (err) {
    await fsp.rm(temp, { force: true });
    throw err;
  }
}

/** The database file, its -wal, -shm and -journal, and the secret key file beside it, by resolved and real path. */
export function databaseFiles(db: string): string[] {
  const resolved = path.resolve(db);
  const realFolder = realOrNull(path.dirname(resolved));
  const files = new Set([resolved, realOrNull(resolved) ?? resolved]);
  // The ignore comment tells the build's file tracer this path is the operator's database, not a file of ours to ship:
  // without it, the tracer cannot bound the join and copies the whole project into the server output.
  if (realFolder) files.add(path.join(/*turbopackIgnore: true*/ realFolder, path.basename(resolved)));
  return [...files].flatMap((f) => [
    ...["", "-wal", "-shm", "-journal"].map((suffix) => f + suffix),
    path.join(path.dirname(f), KEY_FILE_NAME),
  ]);
}

function realOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

/** An fs error as status text: its code only (its message holds absolute paths). */
export function fsErrorCode(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.syscall && e.code ? e.code : err instanceof Error ? err.message : String(err);
}
