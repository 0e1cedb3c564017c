import { z } from "zod";
import { clusterName } from "../cluster-name";

/** tcp://host:port (host a name, IPv4 or [IPv6]) or ipc://name (a socket inside SWITCHYARD_IMPORT_DIR). */
const ENDPOINT = /^(tcp:\/\/(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253}):[0-9]{1,5}|ipc:\/\/[^\s]{1,200})$/;

function portInRange(v: string): boolean {
  if (!v.startsWith("tcp://")) return true;
  const port = Number(v.slice(v.lastIndexOf(":") + 1));
  return port >= 1 && port <= 65_535;
}

const required = { error: (i: { input: unknown }) => (i.input === undefined ? "is required" : "must be text") };

const endpoint = z
  .string(required)
  .trim()
  .min(1, "is required")
  .max(256)
  .regex(ENDPOINT, "must be tcp://host:port or ipc://name")
  .refine(portInRange, "port must be 1 to 65535");

/**
 * A vLLM/SGLang KV events publisher (ZMQ PUB, msgpack batches). worker_id is the Switchyard worker the blocks
 * belong to; topic "" subscribes to every topic (vLLM's default publisher topic is "").
 */
export const zmqSourceConfig = z.object({
  endpoint,
  topic: z.string().max(256).default(""),
  worker_id: z.string(required).trim().min(1, "is required").max(128),
  model: z.string().trim().min(1).max(256).optional(),
  block_size: z.number().int().min(1).max(1_048_576).optional(),
  replay_endpoint: endpoint.optional(),
  /** The cluster the publisher's worker belongs to (absent: default). */
  cluster: clusterName.optional(),
});

export type ZmqSourceConfig = z.output<typeof zmqSourceConfig>;
export type ZmqSourceConfigInput = z.input<typeof zmqSourceConfig>;
