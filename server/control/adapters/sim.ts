import type { PolicyKind } from "../../../lib/policies/policies";
import type { PushAdapter, PushResult } from "../reconciler";
import { joinUrl, PUSH_TIMEOUT_MS, replyErrors, replyMessage, sendJson } from "./http";

/**
 * Pushes to the simulated cluster's control API: PUT /control/policies/<kind> with { version, document }, and the
 * model when the target's scope names one (the simulator then applies it to that model's workers only).
 */
export function simAdapter(
  config: { url: string; token: string },
  model: string | null = null,
  timeoutMs = PUSH_TIMEOUT_MS,
): PushAdapter {
  return {
    async push(kind: PolicyKind, version: number, document: unknown): Promise<PushResult> {
      const url = joinUrl(config.url, `/control/policies/${encodeURIComponent(kind)}`);
      const reply = await sendJson(
        url,
        "PUT",
        model === null ? { version, document } : { version, document, model },
        { authorization: `Bearer ${config.token}` },
        timeoutMs,
      );
      if (reply.status === 200) return { status: "applied" };
      if (reply.status === 422)
        return {
          status: "rejected",
          message: "the simulated cluster refused the document",
          errors: replyErrors(reply.json),
        };
      throw new Error(replyMessage(reply));
    },
  };
}
