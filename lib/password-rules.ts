import { z } from "zod";
import type { ZxcvbnFactory } from "@zxcvbn-ts/core";

// The rules for a new password, shared by every form that sets one and the routes and procedures behind them
// (pure; browser and server). zxcvbn's dictionaries (~1.6 MB) are loaded on the first check, not with the page.

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** zxcvbn's score (0-4) a new password must reach: 3 is "safely unguessable" against an online attack. */
export const PASSWORD_MIN_SCORE = 3;

/**
 * Only this many leading characters are scored: zxcvbn's time grows steeply with length (a 256-character password
 * of keyboard runs took 5 s of CPU; at 64 with at most 4 l33t substitutions, about 50 ms).
 */
const SCORED_LENGTH = 64;

/** Words every password is checked against besides the user's own name. */
export const PRODUCT_WORDS = ["switchyard"] as const;

let checker: Promise<ZxcvbnFactory> | undefined;

function loadChecker(): Promise<ZxcvbnFactory> {
  checker ??= Promise.all([
    import("@zxcvbn-ts/core"),
    import("@zxcvbn-ts/language-common"),
    import("@zxcvbn-ts/language-en"),
  ]).then(
    ([core, common, en]) =>
      new core.ZxcvbnFactory({
        translations: en.translations,
        graphs: common.adjacencyGraphs,
        dictionary: { ...common.dictionary, ...en.dictionary },
        maxLength: SCORED_LENGTH,
        l33tMaxSubstitutions: 4,
      }),
  );
  return checker;
}

/**
 * Why `password` may not be used, or null when it may: under 12 characters, or guessable (zxcvbn score below 3 with
 * the user's name and the product's name as words an attacker would try first) — zxcvbn's warning, else its first
 * suggestion, names what is wrong.
 */
export async function passwordProblem(password: string, userInputs: readonly (string | null | undefined)[] = []) {
  if (password.length < PASSWORD_MIN_LENGTH) return `at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `at most ${PASSWORD_MAX_LENGTH} characters`;
  const inputs = [...PRODUCT_WORDS, ...userInputs.filter((w): w is string => !!w)];
  const result = (await loadChecker()).check(password, inputs);
  if (result.score >= PASSWORD_MIN_SCORE) return null;
  const reason = result.feedback.warning || result.feedback.suggestions[0] || "Add more words that are less common.";
  return `too easy to guess: ${reason}`;
}

/** A new password's length rule alone (the strength check needs the user's name: see strongPassword). */
export const newPasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `at most ${PASSWORD_MAX_LENGTH} characters`);

/**
 * zod refinement for an object with `password` (and the account's `username`, when known): the strength check,
 * as an issue on `password`. Asynchronous: parse with parseAsync / safeParseAsync.
 */
export async function strongPassword(
  value: { password: string; username?: string | null },
  ctx: z.RefinementCtx,
): Promise<void> {
  if (value.password.length < PASSWORD_MIN_LENGTH || value.password.length > PASSWORD_MAX_LENGTH) return;
  const problem = await passwordProblem(value.password, [value.username]);
  if (problem) ctx.addIssue({ code: "custom", path: ["password"], message: problem });
}

/** Account names: lower-case letters, digits and . _ @ - (trimmed and lower-cased first). */
export const usernameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(2, "at least 2 characters")
  .max(64, "at most 64 characters")
  .regex(/^[a-z0-9][a-z0-9._@-]*$/, "letters, digits and . _ @ - only");

/**
 * A setup or invite link's form and route: the link secret, the first admin's name (setup links only; on an invite
 * the form passes the invited name for the strength check and the server checks again with the stored one), and the
 * new password.
 */
export const setPasswordInput = z
  .object({
    secret: z.string().min(1).max(200),
    username: usernameSchema.optional(),
    password: newPasswordSchema,
  })
  .superRefine(strongPassword);
