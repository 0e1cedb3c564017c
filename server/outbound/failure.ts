import { DENY_SETTING, type Refusal } from "./policy";

/** A failed outbound request; its message is a fixed reason (never text from the reply) that any role may see. */
export class OutboundError extends Error {
  override name = "OutboundError";
}

/** The fixed reason for a refusal at request time: "refused by SWITCHYARD_OUTBOUND_DENY". */
export function refusalError(r: Refusal): OutboundError {
  return new OutboundError(r.setting === DENY_SETTING ? `refused by ${r.setting}` : `not allowed by ${r.setting}`);
}

const REASONS: [RegExp, string][] = [
  [/^ECONNREFUSED$/, "connection refused"],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NODATA|EAI_NONAME)$/, "host not found"],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/, "connection closed by the target"],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/, "timed out"],
  [/^(EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL)$/, "host unreachable"],
  [/CERT|^ERR_TLS_|^ERR_SSL_|SELF_SIGNED|UNABLE_TO_VERIFY/, "TLS certificate not accepted"],
  [/^(HPE_|UND_ERR_INFO|UND_ERR_RES_|UND_ERR_HEADERS_OVERFLOW)/, "malformed HTTP response"],
];

/** Map any failure of a request to an OutboundError with a fixed reason (a timeout names its limit). */
export function outboundFailure(err: unknown, timeoutMs: number): OutboundError {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof OutboundError) return e;
    if (e.name === "TimeoutError" || e.name === "AbortError")
      return new OutboundError(`timed out after ${timeoutMs} ms`);
    const refusal = FETCH_REFUSALS.find(([text]) => e instanceof Error && e.message === text);
    if (refusal) return new OutboundError(refusal[1]);
    const code = codeOf(e);
    if (code) {
      const reason = REASONS.find(([re]) => re.test(code))?.[1];
      return new OutboundError(
        reason ?? (/^[A-Z0-9_]{1,40}$/.test(code) ? `cannot connect (${code})` : "cannot connect"),
      );
    }
  }
  return new OutboundError("cannot connect");
}

/** Fetch's own refusals that carry no code, by their fixed text (never a remote reply). */
const FETCH_REFUSALS: [string, string][] = [["bad port", "port not allowed for HTTP (fetch's blocked ports)"]];

function codeOf(e: Error): string | null {
  const own = (e as NodeJS.ErrnoException).code;
  if (typeof own === "string") return own;
  const first = e instanceof AggregateError ? (e.errors[0] as NodeJS.ErrnoException | undefined) : undefined;
  return typeof first?.code === "string" ? first.code : null;
}
