import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/**
 * Point SWITCHYARD_TARGET_DIR and SWITCHYARD_IMPORT_DIR at fresh temp folders (by real path) for this test file, with
 * a folder outside both; call at module top, before the settings are first read. Removed after the file.
 */
export function useTempFolders(): { root: string; targets: string; imports: string; outside: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-folders-")));
  const folders = {
    root,
    targets: path.join(root, "targets"),
    imports: path.join(root, "imports"),
    outside: path.join(root, "outside"),
  };
  fs.mkdirSync(folders.outside);
  process.env.SWITCHYARD_TARGET_DIR = folders.targets;
  process.env.SWITCHYARD_IMPORT_DIR = folders.imports;
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  return folders;
}
