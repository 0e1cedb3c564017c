import { z } from "zod";
import { outboundUrl } from "../outbound-url";

// An alert receiver as the Sources page edits it: an Alertmanager (its base URL; alerts go to /api/v2/alerts) or a
// webhook (its URL and the secret its bodies are signed with). Pure: the form and the router share it.

export const RECEIVER_KINDS = ["alertmanager", "webhook"] as const;
export const MIN_SECRET = 16;

export const receiverInput = z
  .strictObject({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "must be 1 to 64 lower-case letters, digits or '-'")
      .optional(),
    name: z.string().trim().min(1, "must not be empty").max(64, "must be at most 64 characters"),
    kind: z.enum(RECEIVER_KINDS, { error: "must be alertmanager or webhook" }),
    url: outboundUrl,
    /** A webhook's signing secret; the stored one's marker keeps it. Not taken for Alertmanager. */
    secret: z.string().max(512, "must be at most 512 characters").nullable().default(null),
    enabled: z.boolean().default(true),
  })
  .superRefine((r, ctx) => {
    if (r.kind === "alertmanager" && r.secret)
      ctx.addIssue({ code: "custom", path: ["secret"], message: "Alertmanager takes no secret (leave it empty)" });
    if (r.kind === "webhook" && !r.secret)
      ctx.addIssue({
        code: "custom",
        path: ["secret"],
        message: `a webhook needs a signing secret of at least ${MIN_SECRET} characters`,
      });
  });
export type ReceiverInput = z.input<typeof receiverInput>;
