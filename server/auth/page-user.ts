import "server-only";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { serverStore } from "../runtime";
import { isPublicPage } from "./csp";
import { SESSION_COOKIE } from "./constants";
import type { Actor } from "./roles";
import { sessionActor } from "./sign-in-sessions";

/** The signed-in user of a page request; a non-public page without a valid session redirects to sign-in. */
export async function pageUser(): Promise<Actor | null> {
  const [jar, h] = await Promise.all([cookies(), headers()]);
  const actor = await sessionActor(serverStore(), jar.get(SESSION_COOKIE)?.value, Date.now());
  const path = h.get("x-switchyard-path") ?? "/";
  if (!actor && !isPublicPage(path.split("?")[0]!))
    redirect(path === "/" ? "/login" : `/login?next=${encodeURIComponent(path)}`);
  return actor;
}
