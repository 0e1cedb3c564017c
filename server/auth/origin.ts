// Same-origin check for state-changing requests (pure: headers in, decision out).

export type OriginHeaders = {
  method: string;
  origin: string | null;
  host: string | null;
  forwardedHost: string | null;
  secFetchSite: string | null;
  authorization: string | null;
};

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A mutation is allowed when its Origin names this host. Browsers send Origin on every POST (and Sec-Fetch-Site on
 * every request), so a request with neither comes from a script, which no other site can make on a user's behalf.
 */
export function mutationAllowed(h: OriginHeaders): boolean {
  if (SAFE.has(h.method.toUpperCase())) return true;
  const host = (h.forwardedHost ?? h.host ?? "").split(",")[0]!.trim().toLowerCase();
  if (h.origin && h.origin !== "null") {
    try {
      return new URL(h.origin).host.toLowerCase() === host && host !== "";
    } catch {
      return false;
    }
  }
  if (h.origin === "null") return false;
  return !h.secFetchSite || h.secFetchSite === "same-origin" || h.secFetchSite === "none";
}
