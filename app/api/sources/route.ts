import { listSources, listSourceStatus } from "@/db/store/sources";
import { satisfies } from "@/server/auth/roles";
import { requestActor } from "@/server/auth/request";
import { AppError } from "@/server/errors";
import { errorResponse } from "@/server/http";
import { serverStore } from "@/server/runtime";
import { sourcesApiBody } from "@/server/sources/api-view";
import { joinSources } from "@/server/sources/summary";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Source health for monitoring scripts: a viewer session or a read token (Authorization: Bearer <token>). */
export async function GET(req: Request): Promise<Response> {
  try {
    const s = serverStore();
    const now = Date.now();
    const actor = await requestActor(s, req, now);
    if (!actor)
      throw new AppError(
        "UNAUTHORIZED",
        "sign in or send an API token with read scope (Authorization: Bearer <token>)",
      );
    if (!satisfies(actor.role, "viewer")) throw new AppError("FORBIDDEN", "this token cannot read sources");
    return Response.json(sourcesApiBody(joinSources(await listSources(s), await listSourceStatus(s)), now));
  } catch (err) {
    return errorResponse(
      err,
      err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
    );
  }
}
