import pino, { type DestinationStream, type Logger } from "pino";
import { env } from "../env";

// Switchyard's own log: one JSON object per line on stdout, level from SWITCHYARD_LOG_LEVEL. Secrets never reach it:
// fields named like credentials are replaced, and credential-looking text inside messages is masked.

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const SECRET_FIELDS = ["token", "password", "cookie", "authorization", "secret", "set-cookie", "apiKey", "api_key"];
const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => {
  const key = /^[A-Za-z_]\w*$/.test(f) ? f : `["${f}"]`;
  const join = (prefix: string) => (key.startsWith("[") ? `${prefix}${key}` : `${prefix}.${key}`);
  return [key, join("*"), join("*.*")];
});
const SECRET_TEXT: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, "$1 [redacted]"],
  [/\bsy_[A-Za-z0-9_-]{8,}/g, "[redacted token]"],
  [/\b(password|passwd|token|secret|cookie)(["']?\s*[=:]\s*["']?)[^\s"'&,;]+/gi, "$1$2[redacted]"],
];

/** Mask credential-looking text (bearer values, sy_ tokens, password=…) in a message. */
export function scrubSecrets(text: string): string {
  return SECRET_TEXT.reduce((s, [re, to]) => s.replace(re, to), text);
}

/** A logger writing JSON lines to destination (stdout by default). */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "switchyard" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      hooks: {
        logMethod(args, method) {
          method.apply(
            this,
            args.map((a) => (typeof a === "string" ? scrubSecrets(a) : a)) as Parameters<typeof method>,
          );
        },
      },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

const key = Symbol.for("switchyard.logger");
type Holder = { [key]?: Logger };

/** The process's logger (shared by the server, its route bundles and each worker thread's copy of this module). */
export function log(): Logger {
  const holder = globalThis as Holder;
  holder[key] ??= createLogger(configuredLevel());
  return holder[key];
}

function configuredLevel(): LogLevel {
  try {
    return env().SWITCHYARD_LOG_LEVEL;
  } catch {
    return "info";
  }
}

/** The message of any thrown value, for a log field. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
