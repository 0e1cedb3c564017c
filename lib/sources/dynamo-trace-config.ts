import { z } from "zod";
import { clusterName } from "../cluster-name";

/**
 * Config of a watched trace directory: the folder to poll (a relative name inside SWITCHYARD_IMPORT_DIR, checked by
 * sources.upsert and on every poll) and how often (seconds, default 5).
 */
export const traceDirConfig = z.object({
  path: z.string().min(1, "path is required").max(4_096),
  poll_seconds: z.number().int().min(1).max(86_400).default(5),
  /** The cluster the directory's traces come from (absent: each event's own, else default). */
  cluster: clusterName.optional(),
});

export type TraceDirConfig = z.output<typeof traceDirConfig>;
