import { z } from "zod";
import { traceDirConfig } from "./dynamo-trace-config";
import { prometheusSourceConfig } from "./prometheus-config";
import { zmqSourceConfig } from "./zmq-config";

/** Config schema per configured source kind (otlp and trace-upload are implicit and have no config). */
export const SOURCE_CONFIGS = {
  prometheus: prometheusSourceConfig,
  "zmq-kv": zmqSourceConfig,
  "trace-dir": traceDirConfig,
} as const;
export type ConfiguredKind = keyof typeof SOURCE_CONFIGS;
export const CONFIGURED_KINDS = Object.keys(SOURCE_CONFIGS) as ConfiguredKind[];

const id = z
  .string()
  .trim()
  .min(1, "is required")
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "lowercase letters, digits, '.', '_' and '-' only");
const base = { id, name: z.string().trim().min(1, "is required").max(120), enabled: z.boolean().default(true) };

/** A source as the Sources form and the sources.upsert procedure take it: config validated per kind. */
export const sourceInput = z.discriminatedUnion("kind", [
  z.object({ ...base, kind: z.literal("prometheus"), config: prometheusSourceConfig }),
  z.object({ ...base, kind: z.literal("zmq-kv"), config: zmqSourceConfig }),
  z.object({ ...base, kind: z.literal("trace-dir"), config: traceDirConfig }),
]);
export type SourceInput = z.output<typeof sourceInput>;
export type SourceFormInput = z.input<typeof sourceInput>;

/** Validate a stored config for its kind; a one-line error names the first bad field. */
export function parseSourceConfig(
  kind: string,
  config: unknown,
): { ok: true; config: unknown } | { ok: false; error: string } {
  const schema = (SOURCE_CONFIGS as Record<string, z.ZodType>)[kind];
  if (!schema) return { ok: false, error: `unknown source kind "${kind}"` };
  const result = schema.safeParse(config);
  if (result.success) return { ok: true, config: result.data };
  const issue = result.error.issues[0]!;
  return { ok: false, error: `config${issue.path.length ? "." + issue.path.join(".") : ""}: ${issue.message}` };
}
