// Names an operator types for a file or folder the dashboard writes or reads: relative to one configured folder.

/** The rules a name (or what it names on disk) can break, each with its own message. */
export type PathRule =
  | "empty"
  | "absolute"
  | "parent"
  | "control"
  | "backslash"
  | "symlink"
  | "not-folder"
  | "not-file"
  | "protected"
  | "folder-link";

/** Which name is checked: the config field, the setting of its folder, and whether it names a file or a folder. */
export type NameContext = { field: string; setting: string; what: "file" | "folder" };

/**
 * The parts of a relative name ("." and empty parts dropped), or the first rule it breaks; decided on the string
 * alone. A folder may be "." (the configured folder itself); a file needs a name.
 */
export function checkRelativeName(
  name: string,
  what: "file" | "folder" = "file",
): { ok: true; parts: string[] } | { ok: false; rule: PathRule } {
  if (/[\u0000-\u001f\u007f]/.test(name)) return { ok: false, rule: "control" };
  if (name.includes("\\")) return { ok: false, rule: "backslash" };
  if (name.startsWith("/")) return { ok: false, rule: "absolute" };
  const parts = name.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) return { ok: false, rule: "parent" };
  if (parts.length === 0 && (what === "file" || name === "")) return { ok: false, rule: "empty" };
  return { ok: true, parts };
}

/** The message for a broken rule, naming the field, the rule and the setting. */
export function describePathRule(rule: PathRule, c: NameContext): string {
  const inside = `must be a relative ${c.what} name inside ${c.setting}`;
  const messages: Record<PathRule, string> = {
    empty: c.what === "file" ? `must name a file inside ${c.setting}` : `${inside} ("." for ${c.setting} itself)`,
    absolute: `${inside} (no absolute path)`,
    parent: `${inside} (no ".." component)`,
    control: `${inside} (no NUL or other control character)`,
    backslash: `${inside} (no backslash: separate folders with "/")`,
    symlink: `${inside} (no symbolic link at any part of the path)`,
    "not-folder": `${inside} (a part of the path before the last is a file, not a folder)`,
    "not-file":
      c.what === "file"
        ? `${inside} (it names a folder or a special file, not a regular file)`
        : `${inside} (it names a file, not a folder)`,
    protected: `must not name the database (SWITCHYARD_DB, its -wal, -shm or -journal file) or its secret key file`,
    "folder-link": `${c.setting} must be a real folder, not a symbolic link or a path through one: set it to the real path`,
  };
  return `${c.field}: ${messages[rule]}`;
}
