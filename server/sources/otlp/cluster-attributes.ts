// Which resource attributes name an OTLP log record's cluster: SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES, a comma-separated
// list tried in order (first found wins), read and checked once at start-up (server/env.ts). Kept apart from map.ts so
// the settings module reads the rule without the mapping.

/** The attributes tried when the setting is unset: Kubernetes' cluster name, else the service's namespace. */
export const DEFAULT_CLUSTER_ATTRIBUTES: readonly string[] = ["k8s.cluster.name", "service.namespace"];

export const MAX_CLUSTER_ATTRIBUTES = 8;
export const MAX_ATTRIBUTE_NAME = 128;
const ATTRIBUTE_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * The attribute names of SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES in their order (unset: DEFAULT_CLUSTER_ATTRIBUTES).
 * Spaces around a name are dropped. Throws an Error with one line naming the first problem.
 */
export function parseClusterAttributes(raw: string | undefined): readonly string[] {
  if (raw === undefined) return DEFAULT_CLUSTER_ATTRIBUTES;
  const names = raw.split(",").map((n) => n.trim());
  if (names.length > MAX_CLUSTER_ATTRIBUTES)
    throw new Error(`at most ${MAX_CLUSTER_ATTRIBUTES} attribute names (got ${names.length})`);
  names.forEach((name, i) => {
    if (name === "") throw new Error(`name ${i + 1} is empty (expected attribute names separated by commas)`);
    if (name.length > MAX_ATTRIBUTE_NAME)
      throw new Error(`name ${i + 1} is longer than ${MAX_ATTRIBUTE_NAME} characters`);
    if (!ATTRIBUTE_NAME.test(name))
      throw new Error(`name ${JSON.stringify(name)} may hold only letters, digits, ".", "_" and "-"`);
  });
  return names;
}
