import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ["better-sqlite3"],
  // Builds for e2e and for `npm start` may live apart so a test build never clobbers the served one.
  distDir: process.env.SWITCHYARD_DIST_DIR || ".next",
};

export default config;
