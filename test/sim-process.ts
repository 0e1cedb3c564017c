import { spawn, type ChildProcess } from "node:child_process";
import { nodeArgs } from "../server/compiled";

/**
 * Start the simulated cluster as its own process (`server/sim/cli.ts`) with a control API on a free port; resolves
 * once it prints where the control API listens. The caller kills `child` when done.
 */
export function startSimProcess(
  args: string[],
  controlToken: string,
): { child: ChildProcess; controlUrl: Promise<string> } {
  const child = spawn(process.execPath, [...nodeArgs("sim"), ...args, "--control-port", "0"], {
    env: { ...process.env, SWITCHYARD_CONTROL_TOKEN: controlToken },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const controlUrl = new Promise<string>((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const m = /control API on (http:\/\/[^/\s]+)\//.exec(text);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`simulator exited (${code}): ${text}`)));
  });
  return { child, controlUrl };
}
