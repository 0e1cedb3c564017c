// `npm run dev`: rebuild the compiled processes on every change (esbuild's watch mode) and run `npm start`'s two
// processes from them, restarted by node when their bundle changes; Next runs in development mode (pages compile on
// demand). Arguments go to the simulator, as with `npm start`.
import { spawn } from "node:child_process";
import * as esbuild from "esbuild";
import { buildOptions, buildServer } from "./build-server.mjs";

await buildServer();
const ctx = await esbuild.context(buildOptions());
await ctx.watch();
const child = spawn(process.execPath, ["dist/start.mjs", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, SWITCHYARD_DEV: "1", NEXT_TELEMETRY_DISABLED: "1" },
});
const stop = () => child.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", async (code) => {
  await ctx.dispose();
  process.exit(code ?? 1);
});
