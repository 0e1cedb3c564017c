import { listSources, listSourceStatus } from "@/db/queries/source-registry";
import { satisfies } from "@/server/auth/roles";
import { requestActor } from "@/server/auth/request";
import { AppError } from "@/server/errors";
import { errorResponse } from "@/server/http";
import { serverDb, serverStore } from "@/server/runtime";
import { sourcesApiBody } from "@/server/sources/api-view";
import { joinSources } from "@/server/sources/summary";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Source health for monitoring scripts: a viewer session or a read token (Authorization: Bearer <token>). */
export async function GET(req: Request): Promise<Response> {
  try {
    const db = serverDb();
    const now = Date.now();
    const actor = await requestActor(serverStore(), req, now);
    if (!actor)
      throw new AppError(
        "UNAUTHORIZED",
        "sign in or send an API token with read scope (Authorization: Bearer <token>)",
      );
    if (!satisfies(actor.role, "viewer")) throw new AppError("FORBIDDEN", "this token cannot read sources");
    return Response.json(sourcesApiBody(joinSources(listSources(db), listSourceStatus(db)), now));
  } catch (err) {
    return errorResponse(
      err,
      err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
    );
  }
}
