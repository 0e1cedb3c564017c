import os from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { TEST_SECRET_KEY } from "./test/secret-key";

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
    // At least three files at a time, also on two cores: much of the suite waits on PostgreSQL, child processes and
    // sockets, not on the CPU (vitest's default there is one).
    maxWorkers: Math.max(3, os.availableParallelism() - 1),
    globalSetup: ["test/build-global-setup.ts", "test/pg-global-setup.ts"],
    // Stores seal secrets with it; dashboards the tests start inherit it (on PostgreSQL they need one to start).
    env: { SWITCHYARD_SECRET_KEY: TEST_SECRET_KEY },
  },
});
