import "server-only";
import { z } from "zod";
import { listUsers } from "../../db/store/accounts";
import { changeUser, inviteUser, roleSchema, usernameSchema } from "../auth/accounts";
import { adminProcedure, router, viewerProcedure } from "../trpc/init";

const id = z
  .number()
  .int()
  .min(1)
  .max(2 ** 31);

export const usersRouter = router({
  /** The caller (a signed-in user or a token) and its role. */
  me: viewerProcedure.query(({ ctx }) => ({ kind: ctx.actor!.kind, name: ctx.actor!.name, role: ctx.actor!.role })),

  /** Every account (no password hashes); pending = invited, no password set yet. */
  list: adminProcedure.query(({ ctx }) => listUsers(ctx.store)),

  /** Invite a user with a role; the one-time link secret is returned once (valid 7 days). */
  invite: adminProcedure
    .input(z.object({ username: usernameSchema, role: roleSchema }))
    .mutation(async ({ ctx, input }) => {
      const { id, secret } = await inviteUser(ctx.store, input, ctx.now());
      return { id, path: `/setup#${secret}` };
    }),

  /** Change a user's role (takes effect on their next request). */
  setRole: adminProcedure.input(z.object({ id, role: roleSchema })).mutation(async ({ ctx, input }) => {
    await changeUser(ctx.store, input.id, { role: input.role });
    return { id: input.id };
  }),

  /** Disable (signs the user out everywhere) or re-enable an account. */
  setDisabled: adminProcedure.input(z.object({ id, disabled: z.boolean() })).mutation(async ({ ctx, input }) => {
    await changeUser(ctx.store, input.id, { disabled: input.disabled });
    return { id: input.id };
  }),
});
