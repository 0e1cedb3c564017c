import "server-only";
import { z } from "zod";
import { listTokens, revokeToken } from "../../db/store/accounts";
import { TOKEN_SCOPES } from "../auth/roles";
import { createToken } from "../auth/tokens";
import { AppError } from "../errors";
import { adminProcedure, router } from "../trpc/init";

export const tokensRouter = router({
  /** Every token (never its value): scope, who made it, last use, revocation. */
  list: adminProcedure.query(({ ctx }) => listTokens(ctx.store)),

  /** Create a token; its value is in this answer only. */
  create: adminProcedure
    .input(
      z.object({
        name: z.string().trim().min(1, "required").max(64, "at most 64 characters"),
        scope: z.enum(TOKEN_SCOPES),
      }),
    )
    .mutation(({ ctx, input }) => createToken(ctx.store, { ...input, createdBy: ctx.actor!.name }, ctx.now())),

  /** Revoke a token: it stops working at once. */
  revoke: adminProcedure
    .input(
      z.object({
        id: z
          .number()
          .int()
          .min(1)
          .max(2 ** 31),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      if (!(await revokeToken(ctx.store, input.id, ctx.now())))
        throw new AppError("NOT_FOUND", `token ${input.id} does not exist or is already revoked`);
      return { id: input.id };
    }),
});
