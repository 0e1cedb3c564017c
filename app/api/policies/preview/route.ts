import { requestActor, sameOriginRequest } from "@/server/auth/request";
import { satisfies } from "@/server/auth/roles";
import { AppError } from "@/server/errors";
import { errorResponse } from "@/server/http";
import { checkedPreview } from "@/server/routers/previews";
import { previewQueue } from "@/server/preview/service";
import { serverDb, serverStore } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST a preview for scripts (an operate-scope token, or a signed-in operator from the dashboard itself): body
 * `{ kind, document, window?: {from, to}, cluster?: {workers, kv_total_blocks, block_size} }`. Waits for the replay
 * (queued behind at most two running) and answers with the result, the same shape as the review screen's.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    const store = serverStore();
    const actor = await requestActor(store, req, Date.now());
    if (!actor) throw new AppError("UNAUTHORIZED", "sign in, or send an operate token (Authorization: Bearer <token>)");
    if (!satisfies(actor.role, "operator")) throw new AppError("FORBIDDEN", "previews need the operate scope");
    if (!sameOriginRequest(req)) throw new AppError("FORBIDDEN", "cross-origin request refused");
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      throw new AppError("BAD_REQUEST", "the body must be a JSON object");
    }
    const queue = previewQueue(store, store.engine === "sqlite" ? serverDb() : null);
    const job = await queue.submit(await checkedPreview(store, body, Date.now()));
    const done = await queue.wait(job.id);
    if (done.status === "done") return Response.json(done.result);
    throw queue.errorOf(job.id) ?? new AppError("CONFLICT", `the preview was ${done.status}`);
  } catch (err) {
    // Field errors, the window limit and the empty-window flag go back beside the message.
    if (err instanceof AppError && err.code === "BAD_REQUEST" && err.details && typeof err.details === "object")
      return Response.json({ error: err.message, ...(err.details as object) }, { status: 400 });
    return errorResponse(
      err,
      err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
    );
  }
}
