import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\//, replacement: `${root}/` },
      { find: "server-only", replacement: `${root}/test/server-only-stub.ts` },
    ],
  },
  test: {
    include: ["**/*.test.ts", "**/*.test.tsx"],
    exclude: ["node_modules/**", ".next/**", "e2e/**", ".next-e2e/**"],
    environment: "node",
    testTimeout: 20_000,
    pool: "forks",
    globalSetup: ["test/pg-global-setup.ts"],
  },
});
