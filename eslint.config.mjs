// Lint holds the layering (docs/architecture.md), nothing else: db/ is rows in, rows out and imports nothing from server/;
// lib/ (pure code both share) imports from neither. Only these folders are linted (`npm run lint`), without type
// information, so the check stays fast.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

const fromServer = {
  regex: "^(?:(?:\\.{1,2}/)+|@/)server(?:/|$)",
  message:
    "db/ is rows in, rows out: it imports nothing from server/. Move row types to db/rows/, shared pure helpers to lib/.",
};
const fromDb = {
  regex: "^(?:(?:\\.{1,2}/)+|@/)db(?:/|$)",
  message: "lib/ is pure code shared by db/ and server/: it imports from neither.",
};

export default defineConfig([
  {
    files: ["db/**/*.ts", "lib/**/*.ts"],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    files: ["db/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [fromServer] }] },
  },
  {
    files: ["lib/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [fromServer, fromDb] }] },
  },
]);
