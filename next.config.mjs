// Next's configuration lives in server/next-config.ts; scripts/build-server.mjs compiles it to dist/ before `next build`,
// so that the running server reads plain JavaScript here instead of compiling a TypeScript config (which loads
// Next's SWC compiler into the process at every start).
export { nextConfig as default } from "./dist/next-config.mjs";
