import { capacityReplayResponse } from "@/server/capacity/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * `GET /api/capacity/replay?from=MS&to=MS&capacities=B1,…[&cluster=…][&model=…][&role=…]` (read scope): the window
 * replayed through the policy preview's engine at up to four per-worker KV capacities (docs/capacity.md).
 */
export function GET(req: Request): Promise<Response> {
  return capacityReplayResponse(req);
}
