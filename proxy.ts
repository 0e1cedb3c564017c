import { NextResponse, type NextRequest } from "next/server";
import { isPublicPage, pagePolicy } from "./server/auth/csp";
import { SESSION_COOKIE } from "./server/auth/constants";

/**
 * Pages only (API routes authenticate themselves): a nonce-based CSP per response, and a browser without a session
 * cookie goes to the sign-in page. The layout then checks the session itself (expired, disabled).
 */
export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  if (!isPublicPage(pathname) && !request.cookies.get(SESSION_COOKIE)?.value) {
    const url = request.nextUrl.clone();
    url.pathname = "/login";
    url.search = pathname === "/" && !search ? "" : `?next=${encodeURIComponent(pathname + search)}`;
    return NextResponse.redirect(url);
  }
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = pagePolicy(nonce, process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("x-switchyard-path", pathname + search);
  headers.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

export const config = {
  // Every page request, prefetches included, so the path header the layout trusts always comes from here.
  matcher: ["/((?!api/|_next/static|_next/image|favicon.ico).*)"],
};
