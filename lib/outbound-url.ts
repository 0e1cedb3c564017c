import { z } from "zod";

/**
 * An http(s) base URL the dashboard sends requests to (a scrape URL, a policy target): no query or fragment (a path
 * appended to it would land inside them) and no user:password@ (the URL is shown to viewers).
 */
export const outboundUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .max(2_048)
  .refine((v) => !/[?#]/.test(v), "must not have a query or fragment (? or #)")
  .refine((v) => !URL.canParse(v) || (new URL(v).username === "" && new URL(v).password === ""), {
    message: "must not contain user:password@",
  });
