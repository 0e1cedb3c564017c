// The content security policy for pages: scripts only from this origin or with this response's nonce.

/** CSP for a page response; dev adds 'unsafe-eval' (React's dev tooling), production never does. */
export function pagePolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // React and recharts set style attributes; no script can come through them.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** CSP for API answers (JSON, CSV): nothing in them may run or be framed. */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** Headers every response carries. */
export const COMMON_HEADERS: [string, string][] = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "same-origin"],
  ["X-Frame-Options", "DENY"],
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Permissions-Policy", "camera=(), microphone=(), geolocation=()"],
];

/** Pages a signed-out browser may open. */
export function isPublicPage(pathname: string): boolean {
  return pathname === "/login" || pathname === "/setup";
}
