import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

// Secrets stored in the database (policy targets' tokens, scrapes' bearer tokens) are sealed with AES-256-GCM under
// one key: SWITCHYARD_SECRET_KEY, or on SQLite a key file generated once beside the database.

const PREFIX = "enc:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** The key file's name in the data folder (the folder of SWITCHYARD_DB). */
export const KEY_FILE_NAME = "secret.key";

/** A secret that cannot be sealed or opened, or a key that cannot be used; the message never holds a secret. */
export class SecretKeyError extends Error {}

/** Whether a stored value is a sealed secret (else it is a plain one from before sealing). */
export function isSealed(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(PREFIX);
}

/** Seal a secret: "enc:v1:<iv>:<tag>:<ciphertext>", each part base64url; a new random IV every time. */
export function sealSecret(plain: string, key: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", checkedKey(key), iv, { authTagLength: TAG_BYTES });
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url"));
  return PREFIX + parts.join(":");
}

/** Open a sealed secret; throws SecretKeyError when it is not one, was altered, or was sealed under another key. */
export function openSecret(sealed: string, key: Buffer): string {
  const parts = sealed.startsWith(PREFIX) ? sealed.slice(PREFIX.length).split(":") : [];
  const [iv, tag, body] = parts.map((p) => Buffer.from(p, "base64url"));
  if (parts.length !== 3 || iv!.length !== IV_BYTES || tag!.length !== TAG_BYTES)
    throw new SecretKeyError("a stored secret is not in the sealed form enc:v1:<iv>:<tag>:<ciphertext>");
  try {
    const decipher = createDecipheriv("aes-256-gcm", checkedKey(key), iv!, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(body!), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretKeyError(
      "a stored secret cannot be opened: it was sealed under another SWITCHYARD_SECRET_KEY or altered; enter it again",
    );
  }
}

function checkedKey(key: Buffer): Buffer {
  if (key.length !== KEY_BYTES) throw new SecretKeyError(`the secret key must be ${KEY_BYTES} bytes`);
  return key;
}

/** A key as SWITCHYARD_SECRET_KEY or the key file holds it: 64 hex digits, or base64/base64url of 32 bytes. */
export function parseSecretKey(raw: string, name = "SWITCHYARD_SECRET_KEY"): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text)
    ? Buffer.from(text, "hex")
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(text)
      ? Buffer.from(text.replace(/\+/g, "-").replace(/\//g, "_"), "base64url")
      : null;
  if (key?.length !== KEY_BYTES)
    throw new SecretKeyError(
      `${name} must be 32 bytes as 64 hex digits or base64 (make one with: openssl rand -hex 32)`,
    );
  return key;
}

/**
 * The key in `file`, or a new random one written there with mode 0600 when there is none (created: true). The new
 * file is written aside and linked into place, so a second process starting at once reads the whole key or makes none.
 * A key file that others may read or write is refused.
 */
export function readOrCreateKeyFile(file: string): { key: Buffer; created: boolean } {
  try {
    return { key: readKeyFile(file), created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const aside = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = fs.openSync(aside, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    fs.writeSync(fd, `${randomBytes(KEY_BYTES).toString("hex")}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  let created = true;
  try {
    fs.linkSync(aside, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    created = false;
  } finally {
    fs.rmSync(aside, { force: true });
  }
  return { key: readKeyFile(file), created };
}

function readKeyFile(file: string): Buffer {
  const stat = fs.statSync(file);
  if (!stat.isFile()) throw new SecretKeyError(`the secret key file ${file} is not a file`);
  if ((stat.mode & 0o077) !== 0)
    throw new SecretKeyError(
      `the secret key file ${file} may be read by other users (mode ${(stat.mode & 0o777).toString(8)}): ` +
        `make it private with chmod 600 ${file}, or set SWITCHYARD_SECRET_KEY instead`,
    );
  return parseSecretKey(fs.readFileSync(file, "utf8"), `the secret key file ${file}`);
}

/** Where the key comes from: the setting, or (SQLite only) the key file in the data folder. */
export type KeySettings = { SWITCHYARD_SECRET_KEY?: string; SWITCHYARD_DATABASE_URL?: string; SWITCHYARD_DB: string };
export type LoadedKey = { key: Buffer; file: string | null; created: boolean };

/**
 * This dashboard's key: SWITCHYARD_SECRET_KEY when set; else on SQLite the key file beside SWITCHYARD_DB (made on
 * first use); on PostgreSQL the setting is required (every dashboard sharing the database must hold the same key).
 */
export function loadSecretKey(settings: KeySettings): LoadedKey {
  if (settings.SWITCHYARD_SECRET_KEY)
    return { key: parseSecretKey(settings.SWITCHYARD_SECRET_KEY), file: null, created: false };
  if (settings.SWITCHYARD_DATABASE_URL)
    throw new SecretKeyError(
      "SWITCHYARD_SECRET_KEY is required on PostgreSQL (it encrypts the secrets stored in the database; every " +
        "dashboard on it needs the same one): make one with `openssl rand -hex 32`",
    );
  const file = path.join(path.dirname(path.resolve(settings.SWITCHYARD_DB)), KEY_FILE_NAME);
  return { ...readOrCreateKeyFile(file), file };
}
