// Lint holds the layering (docs/architecture.md), nothing else: db/ is rows in, rows out and imports nothing from server/;
// lib/ (pure code both share) imports from neither; pages and components (code the browser uses) import only types
// from server/. Only these folders are linted (`npm run lint`), without type information, so the check stays fast.
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

// server/ modules pages may still import at runtime (paths under server/, without extension), each with why.
const pageServerModules = [
  // Server-component pages and layouts (app/**/page.tsx, layout.tsx) read the signed-in user with it: server code
  // that runs in a server component and never reaches the browser (it imports "server-only").
  "auth/page-user",
];
const runtimeFromServer = {
  regex: `^(?:(?:\\.{1,2}/)+|@/)server(?:/(?!(?:${pageServerModules.join("|")})$)|$)`,
  allowTypeImports: true,
  message:
    "Code the browser uses lives outside server/: import only types from it (import type), move pure code both need to lib/.",
};
// Route handlers and tests run on the server only.
const serverOnlyFiles = ["**/route.ts", "**/route-harness.ts", "**/*.cases.ts", "**/*.test.ts", "**/*.test.tsx"];

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
  {
    files: ["components/**/*.{ts,tsx}", "app/**/*.{ts,tsx}"],
    ignores: serverOnlyFiles,
    languageOptions: { parser: tseslint.parser },
    // Only the import rule runs here: eslint-disable comments can neither lift it nor trip on rules not installed here
    // (react-hooks).
    linterOptions: { noInlineConfig: true },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [runtimeFromServer] }] },
  },
]);
