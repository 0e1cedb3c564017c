// Tests start worker threads and processes from their compiled files (dist/): build them first when stale.
import { buildServer } from "../scripts/build-server.mjs";
import { serverBuildIsFresh } from "../scripts/build-if-needed.mjs";

export default async function setup(): Promise<void> {
  if (!serverBuildIsFresh()) await buildServer();
}
