import { request, type FullConfig } from "@playwright/test";
import { createUser, E2E_PASSWORD } from "./fixtures/auth";

/** Create the e2e admin (invited with the bootstrap API token) and save its signed-in browser state for every spec. */
export default async function globalSetup(config: FullConfig): Promise<void> {
  const baseURL = config.projects[0]!.use.baseURL!;
  await createUser(baseURL, "e2e-admin", "admin");
  const context = await request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await context.post("/api/auth/login", {
    headers: { Origin: baseURL },
    data: { username: "e2e-admin", password: E2E_PASSWORD },
  });
  if (res.status() !== 200) throw new Error(`e2e admin sign-in failed: ${res.status()} ${await res.text()}`);
  await context.storageState({ path: process.env.SWITCHYARD_E2E_STATE! });
  await context.dispose();
}
