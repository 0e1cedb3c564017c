import { describe, expect, it } from "vitest";
import { passwordProblem, setPasswordInput } from "./password-rules";

// The password rules every form that sets a password and every route behind it apply (zxcvbn-ts scores, so these
// rows hold its judgement of each password, not a guess of it).

describe("passwordProblem", () => {
  it.each<[string, string, string | null, string | null]>([
    ["11 characters", "a1b2c3d4e5f", null, "at least 12 characters"],
    ["257 characters", "x".repeat(257), null, "at most 256 characters"],
    ["a common password", "password1234", null, "too easy to guess: This is similar to a commonly used password."],
    ["a keyboard row", "qwertyuiopas", null, "too easy to guess: This is similar to a commonly used password."],
    [
      "one repeated character",
      "aaaaaaaaaaaa",
      null,
      'too easy to guess: Repeated characters like "aaa" are easy to guess.',
    ],
    [
      "a repeated pattern",
      "abcabcabcabc",
      null,
      'too easy to guess: Repeated character patterns like "abcabcabc" are easy to guess.',
    ],
    [
      "the product's name and a year",
      "Switchyard2025!",
      null,
      "too easy to guess: There should not be any personal or page related data.",
    ],
    [
      "the user's own name with digits",
      "vexilmorant88",
      "vexilmorant",
      "too easy to guess: There should not be any personal or page related data.",
    ],
    ["the same, for another user", "vexilmorant88", "ann", null],
    ["several uncommon words", "correct horse battery", null, null],
    ["the e2e password", "e2e-password-0123456789", "e2e-admin", null],
    ["a long random one", "Tr0ub4dor&3xy-9qL", null, null],
    [
      "a 256-character passphrase (only its first 64 are scored)",
      "purple monkey dishwasher ".repeat(11).slice(0, 256),
      null,
      null,
    ],
  ])("%s", async (_, password, username, want) => {
    expect(await passwordProblem(password, [username])).toBe(want);
  });

  it("scores a long password of keyboard runs quickly (only its first 64 characters)", async () => {
    await passwordProblem("warm up the dictionaries");
    const started = performance.now();
    await passwordProblem("1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik,9ol.0p;/-['=]".repeat(6).slice(0, 256));
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("setPasswordInput (the setup form's and route's schema)", () => {
  it.each<[string, Record<string, unknown>, string | null]>([
    ["a setup link's first admin", { secret: "s", username: "Root", password: "correct horse battery" }, null],
    ["an invite (no username sent)", { secret: "s", password: "correct horse battery" }, null],
    ["a short password", { secret: "s", password: "short" }, "password: at least 12 characters"],
    [
      "the admin's name as the password",
      { secret: "s", username: "vexilmorant", password: "vexilmorant88" },
      "password: too easy to guess: There should not be any personal or page related data.",
    ],
    [
      "a bad username",
      { secret: "s", username: "-x", password: "correct horse battery" },
      "username: letters, digits and . _ @ - only",
    ],
    [
      "no secret",
      { secret: "", password: "correct horse battery" },
      "secret: Too small: expected string to have >=1 characters",
    ],
  ])("%s", async (_, input, want) => {
    const parsed = await setPasswordInput.safeParseAsync(input);
    const issue = parsed.error?.issues[0];
    expect(issue ? `${issue.path.join(".")}: ${issue.message}` : null).toBe(want);
  });
});
