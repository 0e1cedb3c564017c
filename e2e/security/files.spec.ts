import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { adminApi } from "../fixtures/auth";
import { apiQuery, uniq } from "../fixtures/telemetry";

// Issue 32's file probe replayed over HTTP: a planner-file target at "<any>/../victim" was stored and written over the
// victim by the reconciler 5 s later; a trace-dir source at /root/.ssh was stored, and /nonexistent told ENOENT. Each
// must be a 422 naming the rule and the setting, with nothing stored.

const idOf = (prefix: string) =>
  uniq(prefix)
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 60);

/** POST a tRPC mutation; its status and error message (null on success). */
async function mutate(api: APIRequestContext, procedure: string, input: unknown) {
  const res = await api.post(`/api/trpc/${procedure}`, { data: { json: input } });
  const body = (await res.json()) as { error?: { json: { message: string } } };
  return { status: res.status(), message: body.error?.json.message ?? null };
}

test("a planner-file target outside SWITCHYARD_TARGET_DIR is a 422 naming the rule; nothing stored or written", async ({
  baseURL,
}) => {
  const api = await adminApi(baseURL!);
  const run = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-e2e-files-"));
  fs.mkdirSync(path.join(run, "any"));
  const victim = path.join(run, "victim");
  const id = idOf("probe-file");
  try {
    for (const [probe, rule] of [
      [`${run}/any/../victim`, "(no absolute path)"],
      ["../../../../../../../../../../tmp/victim", '(no ".." component)'],
    ] as const) {
      const res = await mutate(api, "policies.targets.upsert", {
        target: { id, name: id, adapter: "planner-file", config: { path: probe }, kinds: ["autoscaling"] },
      });
      expect(res).toEqual({
        status: 422,
        message: `config.path: must be a relative file name inside SWITCHYARD_TARGET_DIR ${rule}`,
      });
    }
    const targets = await apiQuery<{ id: string }[]>(api, "policies.targets.list", undefined);
    expect(targets.map((t) => t.id)).not.toContain(id);
    const rollout = await apiQuery<{ targetId: string }[]>(api, "policies.rollout", undefined);
    expect(rollout.map((r) => r.targetId)).not.toContain(id);
    expect(fs.existsSync(victim)).toBe(false);
  } finally {
    fs.rmSync(run, { recursive: true, force: true });
    await api.dispose();
  }
});

test("trace-dir sources at /root/.ssh and /nonexistent get the same 422, saying nothing about either", async ({
  baseURL,
}) => {
  const api = await adminApi(baseURL!);
  const id = idOf("probe-dir");
  try {
    const answers = [];
    for (const probe of ["/root/.ssh", "/nonexistent"])
      answers.push(
        await mutate(api, "sources.upsert", {
          source: { id, name: id, kind: "trace-dir", config: { path: probe, poll_seconds: 1 } },
        }),
      );
    const refused = {
      status: 422,
      message: "config.path: must be a relative folder name inside SWITCHYARD_IMPORT_DIR (no absolute path)",
    };
    expect(answers).toEqual([refused, refused]);
    const sources = await apiQuery<{ id: string }[]>(api, "sources.list", undefined);
    expect(sources.map((s) => s.id)).not.toContain(id);
  } finally {
    await api.dispose();
  }
});
