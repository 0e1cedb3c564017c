import type { Store } from "../../db/store/store";
import type { Actor } from "./roles";
import { mutationAllowed } from "./origin";
import { readCookie, SESSION_COOKIE, sessionActor } from "./sign-in-sessions";
import { bearerValue, tokenActor } from "./tokens";

/** The caller of an HTTP request: a bearer API token, else the session cookie; null when neither is valid. */
export async function requestActor(s: Store, req: Request, now: number): Promise<Actor | null> {
  const bearer = bearerValue(req.headers.get("authorization"));
  if (bearer) return tokenActor(s, bearer, now);
  return sessionActor(s, readCookie(req.headers.get("cookie"), SESSION_COOKIE), now);
}

/**
 * True when a state-changing request comes from this origin (or is a script with a bearer token). X-Forwarded-Host
 * reaches here only from a trusted proxy: server/main.ts drops it from anyone else (and Next then sets it to Host).
 */
export function sameOriginRequest(req: Request): boolean {
  const h = req.headers;
  return mutationAllowed({
    method: req.method,
    origin: h.get("origin"),
    host: h.get("host"),
    forwardedHost: h.get("x-forwarded-host"),
    secFetchSite: h.get("sec-fetch-site"),
    authorization: h.get("authorization"),
  });
}

/**
 * The client's address (set by server/main.ts: the socket's peer, or from X-Forwarded-For when that peer is a trusted
 * proxy; a client's own copy of the header is dropped).
 */
export function clientAddress(req: Request): string {
  return req.headers.get("x-switchyard-client-address") ?? "unknown";
}

/** True when the browser reached us over https (directly, or through a trusted proxy that says so). */
export function isHttps(req: Request): boolean {
  return (
    new URL(req.url).protocol === "https:" || req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https"
  );
}
