// Bounded labels for HTTP request metrics: a path becomes its route (ids collapsed), never the raw path, so a client
// cannot create series by requesting made-up URLs.

const API = new Set(["auth", "health", "import", "ingest", "otlp", "sessions", "sources", "trpc"]);
const PAGES = new Set(["admin", "login", "planner", "policies", "routing", "sessions", "setup", "sources", "workers"]);
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The route a request URL belongs to, e.g. "/api/trpc", "/sessions/[id]", "/_next" or "other". */
export function routeLabel(url: string | undefined): string {
  const path = (url ?? "/").split(/[?#]/)[0]!;
  if (path === "/" || path === "") return "/";
  if (path === "/metrics") return "/metrics";
  const parts = path.split("/").slice(1);
  const [first = "", second] = parts;
  if (first === "_next") return "/_next";
  if (first === "favicon.ico") return "/favicon.ico";
  if (first === "api") return second && API.has(second) ? `/api/${second}` : "/api/other";
  if (PAGES.has(first)) return parts.length > 1 && second ? `/${first}/[id]` : `/${first}`;
  return "other";
}

/** An HTTP method as a label (unknown ones are "other"). */
export function methodLabel(method: string | undefined): string {
  const m = (method ?? "").toUpperCase();
  return METHODS.has(m) ? m : "other";
}
