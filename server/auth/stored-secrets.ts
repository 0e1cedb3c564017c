import { setTargetConfig, targetConfigsForUpdate } from "../../db/store/control";
import { setSourceConfig, sourceConfigsForUpdate } from "../../db/store/sources";
import type { Store } from "../../db/store/store";
import { keepStoredSecrets, SOURCE_SECRET_FIELDS, TARGET_SECRET_FIELDS } from "../../lib/secret-fields";
import { env } from "../env";
import { AppError } from "../errors";
import { log } from "../observability/logger";
import { isSealed, loadSecretKey, openSecret, sealSecret, type KeySettings } from "./secret-box";

// The secrets of stored configs: sealed when an edit stores them, opened only by what sends them (a push adapter, a
// scrape), never shown. Views redact them (lib/secret-fields.ts).

const holder = Symbol.for("switchyard.secretKey");
type Holder = { [holder]?: Buffer };

/** This process's key (one for the server entry and Next's route bundles): loaded from the settings on first use. */
export function secretKey(): Buffer {
  const g = globalThis as Holder;
  g[holder] ??= loadSecretKey(env()).key;
  return g[holder];
}

/**
 * Start-up, before the database is opened: load this process's key (SecretKeyError on a missing or unsafe one) and log
 * which key file it came from (its path, never the key).
 */
export function installSecretKey(settings: KeySettings): Buffer {
  const loaded = loadSecretKey(settings);
  (globalThis as Holder)[holder] = loaded.key;
  if (loaded.file)
    log().info(
      { file: loaded.file },
      loaded.created
        ? "secret key file generated: back it up with the database (stored secrets cannot be opened without it)"
        : "secret key file used",
    );
  return loaded.key;
}

function refusal(field: string, message: string): AppError {
  const path = `config.${field}`;
  return new AppError("BAD_REQUEST", `${path}: ${message}`, { errors: [{ path, message }] });
}

/**
 * The config to store for an edit of a target or source, each secret field sealed. One sent back as SECRET_MARKER
 * keeps the stored value only while the URL's scheme, host and port are unchanged; one equal to the stored secret keeps
 * its stored seal (an unchanged config stores the same text). Throws BAD_REQUEST naming the field; stores nothing.
 */
export function sealConfig(
  config: Record<string, unknown>,
  stored: Record<string, unknown> | null,
  fields: readonly string[],
  key: Buffer = secretKey(),
): Record<string, unknown> {
  const decided = keepStoredSecrets(config, stored, fields);
  if (!decided.ok) throw refusal(decided.field, decided.message);
  const out = decided.config;
  for (const field of fields) {
    const value = out[field];
    if (typeof value !== "string") continue;
    if (decided.kept.includes(field)) {
      out[field] = isSealed(value) ? value : sealSecret(value, key);
      continue;
    }
    if (isSealed(value)) throw refusal(field, "must not start with enc:v1: (enter the token itself)");
    const previous = stored?.[field];
    out[field] = isSealed(previous) && opensTo(previous, value, key) ? previous : sealSecret(value, key);
  }
  return out;
}

function opensTo(sealed: string, plain: string, key: Buffer): boolean {
  try {
    return openSecret(sealed, key) === plain;
  } catch {
    return false;
  }
}

/** A stored config with its secret fields opened, for the one that sends them; a plain (older) value passes as is. */
export function openSecrets(
  config: Record<string, unknown>,
  fields: readonly string[],
  key: Buffer = secretKey(),
): Record<string, unknown> {
  const out = { ...config };
  for (const field of fields) {
    const value = out[field];
    if (isSealed(value)) out[field] = openSecret(value, key);
  }
  return out;
}

/** One stored secret opened for the one that sends it; a plain (older) value passes as is. */
export function openStoredSecret(value: string, key: Buffer = secretKey()): string {
  return isSealed(value) ? openSecret(value, key) : value;
}

type ConfigRows = {
  read: (s: Store) => Promise<{ id: string; config: string }[]>;
  write: (s: Store, id: string, config: string) => Promise<void>;
  fields: readonly string[];
};

const TABLES: Record<"targets" | "sources", ConfigRows> = {
  targets: { read: targetConfigsForUpdate, write: setTargetConfig, fields: TARGET_SECRET_FIELDS },
  sources: { read: sourceConfigsForUpdate, write: setSourceConfig, fields: SOURCE_SECRET_FIELDS },
};

/**
 * Seal every stored secret not sealed yet, one transaction per table (rows held on PostgreSQL, so an edit begun
 * meanwhile waits); sealed ones are left as they are, so running it again changes nothing. Returns rows changed.
 */
export async function sealStoredSecrets(
  s: Store,
  key: Buffer = secretKey(),
): Promise<{ targets: number; sources: number }> {
  const targets = await s.tx((tx) => sealRows(tx, TABLES.targets, key));
  const sources = await s.tx((tx) => sealRows(tx, TABLES.sources, key));
  if (targets + sources > 0) log().info({ targets, sources }, "stored secrets sealed");
  return { targets, sources };
}

async function sealRows(tx: Store, table: ConfigRows, key: Buffer): Promise<number> {
  let changed = 0;
  for (const row of await table.read(tx)) {
    const config = parseObject(row.config);
    const plain = table.fields.filter((f) => typeof config?.[f] === "string" && !isSealed(config[f]));
    if (!config || plain.length === 0) continue;
    const next = { ...config };
    for (const f of plain) next[f] = sealSecret(config[f] as string, key);
    await table.write(tx, row.id, JSON.stringify(next));
    changed++;
  }
  return changed;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
