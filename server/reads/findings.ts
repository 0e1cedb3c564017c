import "server-only";
import { findingInputs } from "../../db/store/causes";
import type { RequestScope } from "../../db/store/scope";
import type { Store } from "../../db/store/store";
import { toolWaitResidency, unstablePrefix } from "../analysis/findings";

/** The findings over [from, to) of a scope's requests and sessions (the whole fleet's without one). */
export async function scopeFindings(s: Store, from: number, to: number, rs?: RequestScope) {
  const f = await findingInputs(s, from, to, rs);
  return { unstablePrefix: unstablePrefix(f.sessions, f.ttft), toolWait: toolWaitResidency(f.waits) };
}
