import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  isSealed,
  KEY_FILE_NAME,
  loadSecretKey,
  openSecret,
  parseSecretKey,
  readOrCreateKeyFile,
  sealSecret,
  SecretKeyError,
} from "./secret-box";

const KEY = Buffer.alloc(32, 7);
const OTHER = Buffer.alloc(32, 8);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-secret-"));
  dirs.push(d);
  return d;
}

describe("sealSecret / openSecret", () => {
  it.each(["tok-123", "", "ünïcødé ✓", "x".repeat(2_048)])("round-trips %j", (plain) => {
    const sealed = sealSecret(plain, KEY);
    expect(sealed).toMatch(/^enc:v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]*$/);
    expect(isSealed(sealed)).toBe(true);
    expect(openSecret(sealed, KEY)).toBe(plain);
  });

  it("seals the same secret differently each time (a new IV), without the secret in the text", () => {
    const [a, b] = [sealSecret("tok-123", KEY), sealSecret("tok-123", KEY)];
    expect(a).not.toBe(b);
    expect(a).not.toContain("tok-123");
  });

  const sealed = sealSecret("tok-123", KEY);
  const [iv, tag, body] = sealed.slice("enc:v1:".length).split(":") as [string, string, string];
  const flip = (part: string) => Buffer.from(part, "base64url").map((b, i) => (i === 0 ? b ^ 1 : b));
  const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64url");
  it.each<[string, string, Buffer, RegExp]>([
    ["another key", sealed, OTHER, /sealed under another SWITCHYARD_SECRET_KEY or altered/],
    ["an altered ciphertext", `enc:v1:${iv}:${tag}:${b64(flip(body))}`, KEY, /or altered/],
    ["an altered tag", `enc:v1:${iv}:${b64(flip(tag))}:${body}`, KEY, /or altered/],
    ["an altered IV", `enc:v1:${b64(flip(iv))}:${tag}:${body}`, KEY, /or altered/],
    ["a cut tag", `enc:v1:${iv}:${tag.slice(0, 10)}:${body}`, KEY, /not in the sealed form/],
    ["a plain value", "tok-123", KEY, /not in the sealed form/],
    ["a missing part", `enc:v1:${iv}:${tag}`, KEY, /not in the sealed form/],
  ])("refuses %s clearly, without the secret in the message", (_name, value, key, message) => {
    expect(() => openSecret(value, key)).toThrow(SecretKeyError);
    expect(() => openSecret(value, key)).toThrow(message);
    try {
      openSecret(value, key);
    } catch (err) {
      expect((err as Error).message).not.toContain("tok-123");
    }
  });

  it("refuses a key that is not 32 bytes", () => {
    expect(() => sealSecret("x", Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe("parseSecretKey", () => {
  const bytes = randomBytes(32);
  it.each([
    ["hex", bytes.toString("hex")],
    ["upper-case hex", bytes.toString("hex").toUpperCase()],
    ["base64", bytes.toString("base64")],
    ["base64url", bytes.toString("base64url")],
    ["with a newline", `${bytes.toString("hex")}\n`],
  ])("reads %s", (_name, raw) => expect(parseSecretKey(raw).equals(bytes)).toBe(true));

  it.each(["", "abc", "g".repeat(64), bytes.toString("hex").slice(2), randomBytes(16).toString("base64")])(
    "refuses %j naming the setting and how to make one",
    (raw) => expect(() => parseSecretKey(raw)).toThrow(/SWITCHYARD_SECRET_KEY .*openssl rand -hex 32/),
  );
});

describe("the key file", () => {
  it("is created once with mode 0600 and read back the next time", () => {
    const file = path.join(tempDir(), "nested", KEY_FILE_NAME);
    const first = readOrCreateKeyFile(file);
    expect(first.created).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
    const second = readOrCreateKeyFile(file);
    expect(second).toEqual({ key: first.key, created: false });
    expect(fs.readdirSync(path.dirname(file))).toEqual([KEY_FILE_NAME]);
  });

  it.each([0o644, 0o640, 0o604, 0o660])("refuses an existing file with mode %o, naming it and the fix", (mode) => {
    const file = path.join(tempDir(), KEY_FILE_NAME);
    fs.writeFileSync(file, `${KEY.toString("hex")}\n`, { mode });
    fs.chmodSync(file, mode);
    expect(() => readOrCreateKeyFile(file)).toThrow(SecretKeyError);
    expect(() => readOrCreateKeyFile(file)).toThrow(`${file} may be read by other users`);
    expect(() => readOrCreateKeyFile(file)).toThrow(`chmod 600 ${file}`);
    expect(fs.readFileSync(file, "utf8")).toBe(`${KEY.toString("hex")}\n`);
  });

  it("refuses a key file that holds no key", () => {
    const file = path.join(tempDir(), KEY_FILE_NAME);
    fs.writeFileSync(file, "not a key\n", { mode: 0o600 });
    expect(() => readOrCreateKeyFile(file)).toThrow(`the secret key file ${file} must be 32 bytes`);
  });
});

describe("loadSecretKey", () => {
  it("takes SWITCHYARD_SECRET_KEY on either engine, writing no file", () => {
    const dir = tempDir();
    const settings = { SWITCHYARD_SECRET_KEY: KEY.toString("hex"), SWITCHYARD_DB: path.join(dir, "s.db") };
    expect(loadSecretKey(settings)).toEqual({ key: KEY, file: null, created: false });
    expect(loadSecretKey({ ...settings, SWITCHYARD_DATABASE_URL: "postgres://x/y" }).key).toEqual(KEY);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("on SQLite without the setting: the key file in the database's folder", () => {
    const dir = tempDir();
    const loaded = loadSecretKey({ SWITCHYARD_DB: path.join(dir, "switchyard.db") });
    expect(loaded).toMatchObject({ file: path.join(dir, KEY_FILE_NAME), created: true });
    expect(loadSecretKey({ SWITCHYARD_DB: path.join(dir, "switchyard.db") })).toEqual({ ...loaded, created: false });
  });

  it("on PostgreSQL without the setting: refused in one line naming it and how to make one", () => {
    const dir = tempDir();
    const load = () =>
      loadSecretKey({ SWITCHYARD_DATABASE_URL: "postgres://x/y", SWITCHYARD_DB: path.join(dir, "unused.db") });
    expect(load).toThrow(SecretKeyError);
    expect(load).toThrow(/^SWITCHYARD_SECRET_KEY is required on PostgreSQL.*`openssl rand -hex 32`$/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
