import { routingPolicy, type PolicyKind } from "../../../lib/policies/policies";
import type { PushAdapter, PushResult } from "../reconciler";
import { joinUrl, PUSH_TIMEOUT_MS, replyErrors, replyMessage, sendJson } from "./http";

/** The body of Dynamo's frontend POST /busy_threshold for a model from a routing document (nulls: no threshold). */
export function busyThresholdBody(model: string, document: unknown) {
  const busy = routingPolicy.parse(document).busy;
  return {
    model,
    active_decode_blocks_threshold: busy.active_decode_blocks_threshold,
    active_prefill_tokens_threshold: busy.active_prefill_tokens_threshold,
    active_prefill_tokens_threshold_frac: busy.active_prefill_tokens_threshold_frac,
  };
}

/** Pushes the routing policy's busy thresholds to a Dynamo frontend; a 4xx is a rejection, 5xx or no answer is retried. */
export function busyThresholdAdapter(config: { url: string; model: string }, timeoutMs = PUSH_TIMEOUT_MS): PushAdapter {
  return {
    async push(kind: PolicyKind, _version: number, document: unknown): Promise<PushResult> {
      if (kind !== "routing")
        return { status: "rejected", message: `the busy-threshold endpoint takes only routing policies, not ${kind}` };
      const reply = await sendJson(
        joinUrl(config.url, "/busy_threshold"),
        "POST",
        busyThresholdBody(config.model, document),
        {},
        timeoutMs,
      );
      if (reply.status >= 200 && reply.status < 300) return { status: "applied" };
      const message = replyMessage(reply);
      const errors = replyErrors(reply.json);
      if (reply.status >= 400 && reply.status < 500)
        return errors.length ? { status: "rejected", message, errors } : { status: "rejected", message };
      throw new Error(message);
    },
  };
}
