import type { NextConfig } from "next";
import { API_POLICY, COMMON_HEADERS } from "./auth/csp";

// Next's configuration. next.config.mjs reads its compiled copy (dist/next-config.mjs), so neither `next build` nor the
// running server compiles a TypeScript config (which loads Next's SWC compiler into the process).

const common = COMMON_HEADERS.map(([key, value]) => ({ key, value }));

export const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ["better-sqlite3"],
  // Builds for e2e and for `npm start` may live apart so a test build never clobbers the served one.
  distDir: process.env.SWITCHYARD_DIST_DIR || ".next",
  // Pages get their nonce-based content security policy from proxy.ts; API answers a policy that runs nothing.
  async headers() {
    return [
      { source: "/:path*", headers: common },
      {
        source: "/api/:path*",
        headers: [
          { key: "Content-Security-Policy", value: API_POLICY },
          { key: "Cache-Control", value: "no-store" },
        ],
      },
    ];
  },
};
