// Lint holds the layering of STYLE.md, nothing else: db/ is rows in, rows out and imports nothing from server/;
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

/**
 * Files of db/ that still import server/: they move with the ingest and attribution layering, issue 13 (their code is
 * being changed on other branches). Remove an entry when its file no longer imports server/.
 */
export const layeringExceptions = [
  "db/queries/ingest*.ts", // event types and prefix resolution of server/ingest; counters and buckets via re-exports
  "db/queries/chains*.ts", // NamedRequest of server/ingest/prefix; its test ingests through server/ingest
];

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
    files: layeringExceptions,
    rules: { "no-restricted-imports": "off" },
  },
]);
