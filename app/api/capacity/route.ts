import { capacityResponse } from "@/server/capacity/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * `GET /api/capacity?from=MS&to=MS[&cluster=…][&model=…][&role=…][&capacities=B1,B2,…][&target=0.8]
 * [&bytes_per_token=N][&tier_gbps=G][&format=csv]` (read scope): the window's LRU hit-rate curves, shared and per
 * worker, with the knee, the size a target needs and the tier grid (docs/capacity.md).
 */
export function GET(req: Request): Promise<Response> {
  return capacityResponse(req);
}
