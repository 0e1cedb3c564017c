import { requestActor, sameOriginRequest } from "@/server/auth/request";
import { satisfies } from "@/server/auth/roles";
import { AppError } from "@/server/errors";
import { errorResponse, readBodyLimited } from "@/server/http";
import { checkedPreview, ownerOf } from "@/server/routers/previews";
import { previewQueue } from "@/server/preview/service";
import { serverStore } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A preview request's body at most (a policy document and a window: a few KB). */
const MAX_PREVIEW_BODY = 1024 * 1024;

/**
 * POST a preview for scripts (an operate-scope token, or a signed-in operator from the dashboard itself): body
 * `{ kind, document, window?: {from, to}, cluster?: {workers, kv_total_blocks, block_size} }`. Waits for the replay
 * (queued behind at most two running) and answers with the result, the same shape as the review screen's. Refused
 * before it is queued: a body over 1 MiB (413), an override out of bounds or an estimate over
 * SWITCHYARD_PREVIEW_MEMORY_MB (422), a full queue or two previews of this caller already queued or running (429 with
 * Retry-After). A client that goes away gives up its job: it is cancelled unless another caller waits for it.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    const store = serverStore();
    const actor = await requestActor(store, req, Date.now());
    if (!actor) throw new AppError("UNAUTHORIZED", "sign in, or send an operate token (Authorization: Bearer <token>)");
    if (!satisfies(actor.role, "operator")) throw new AppError("FORBIDDEN", "previews need the operate scope");
    if (!sameOriginRequest(req)) throw new AppError("FORBIDDEN", "cross-origin request refused");
    let body: unknown;
    const text = await readBodyLimited(req, MAX_PREVIEW_BODY);
    try {
      body = JSON.parse(text);
    } catch {
      throw new AppError("BAD_REQUEST", "the body must be a JSON object");
    }
    const queue = previewQueue(store);
    const job = await queue.submit(await checkedPreview(store, body, Date.now()), ownerOf(actor));
    const gone = () => queue.release(job.id);
    req.signal.addEventListener("abort", gone, { once: true });
    if (req.signal.aborted) gone();
    const done = await queue.wait(job.id).finally(() => req.signal.removeEventListener("abort", gone));
    if (done.status === "done") return Response.json(done.result);
    throw queue.errorOf(job.id) ?? new AppError("CONFLICT", `the preview was ${done.status}`);
  } catch (err) {
    // Field errors, the window limit, the empty-window flag and the memory estimate go back beside the message.
    if (
      err instanceof AppError &&
      (err.code === "BAD_REQUEST" || err.code === "UNPROCESSABLE") &&
      err.details &&
      typeof err.details === "object"
    )
      return Response.json({ error: err.message, ...(err.details as object) }, { status: err.status });
    if (err instanceof AppError && err.code === "TOO_MANY_REQUESTS")
      return errorResponse(err, {
        "Retry-After": String((err.details as { retry_after?: number })?.retry_after ?? 30),
      });
    return errorResponse(
      err,
      err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
    );
  }
}
