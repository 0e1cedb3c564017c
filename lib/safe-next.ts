// Where to go after signing in: only a place on the dashboard's own origin (pure; browser and server).

/**
 * The path, query and fragment of `next` resolved against `origin`, when it stays on that origin; "/" for anything
 * else (another host, a scheme such as javascript:, a value the URL parser refuses). Browsers drop tabs and newlines
 * from URLs, so `next` is resolved as a URL here rather than checked as a string. A path that would itself read as
 * protocol-relative ("//host", from "/.//host") is refused too.
 */
export function safeNext(next: string | null | undefined, origin: string): string {
  if (!next) return "/";
  let base: URL;
  let url: URL;
  try {
    base = new URL(origin);
    url = new URL(next, base);
  } catch {
    return "/";
  }
  if (url.origin !== base.origin || url.origin === "null") return "/";
  if (url.pathname.startsWith("//")) return "/";
  return url.pathname + url.search + url.hash;
}
