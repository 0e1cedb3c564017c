import { env } from "../env";
import { AppError } from "../errors";
import { ConfinedPathError, databaseFiles, type Confinement } from "./confined-path";

// The two folders operators' names are confined to, from the settings.

/** Where planner-file targets write (SWITCHYARD_TARGET_DIR); never over the database or its secret key. */
export function targetFolder(): Confinement {
  const e = env();
  return {
    folder: e.SWITCHYARD_TARGET_DIR,
    field: "config.path",
    setting: "SWITCHYARD_TARGET_DIR",
    protectedFiles: databaseFiles(e.SWITCHYARD_DB),
  };
}

/** Where trace-dir sources read (SWITCHYARD_IMPORT_DIR). */
export function importFolder(): Confinement {
  return { folder: env().SWITCHYARD_IMPORT_DIR, field: "config.path", setting: "SWITCHYARD_IMPORT_DIR" };
}

/** Run a check; a refused name becomes a 422 with the rule's message (for procedures). */
export async function unprocessableIfRefused<T>(check: Promise<T>): Promise<T> {
  try {
    return await check;
  } catch (err) {
    if (err instanceof ConfinedPathError) throw new AppError("UNPROCESSABLE", err.message);
    throw err;
  }
}
