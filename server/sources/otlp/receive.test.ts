import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { BatchReply } from "../../ingest/batch";
import { receiveLogs } from "./receive";

const fixture = (name: string) =>
  JSON.parse(readFileSync(path.join(__dirname, "fixtures", name), "utf8")) as {
    resourceLogs: { scopeLogs: { logRecords: unknown[] }[] }[];
  };

describe("receiveLogs", () => {
  it("counts the events ingest refused from the reply's total, not from the items it lists", async () => {
    const request = fixture("codex.json");
    request.resourceLogs[0]!.scopeLogs[0]!.logRecords.pop();
    let sent = 0;
    const result = await receiveLogs(request, async (events): Promise<BatchReply> => {
      sent = events.length;
      // A reply past its error limit lists only the first refused items.
      return {
        accepted: 0,
        duplicate: 0,
        rejected: events.length,
        items: [{ index: 0, id: "x", status: "rejected", error: "refused" }],
        errors_truncated: events.length - 1,
      };
    });
    expect(sent).toBeGreaterThan(1);
    expect(result.rejected).toBe(sent);
    expect(result.errorMessage).toMatch(new RegExp(`^record \\d+: refused; and ${sent - 1} more$`));
  });

  it.each<[string, readonly string[] | undefined, string | undefined]>([
    ["the setting's list when none is given (unset here: k8s.cluster.name first)", undefined, "prod-us"],
    ["the list given, in its order", ["deployment.environment", "k8s.cluster.name"], "prod-eu"],
    ["the default cluster when the record has none of the list", ["cloud.region"], undefined],
  ])("names each event's cluster by %s", async (_name, clusterAttributes, want) => {
    const request = fixture("codex.json") as unknown as {
      resourceLogs: { resource?: { attributes?: unknown[] } }[];
    };
    const resource = (request.resourceLogs[0]!.resource ??= {});
    (resource.attributes ??= []).push(
      { key: "k8s.cluster.name", value: { stringValue: "prod-us" } },
      { key: "deployment.environment", value: { stringValue: "prod-eu" } },
    );
    const clusters = new Set<string | undefined>();
    const submit = async (events: { cluster?: string }[]): Promise<BatchReply> => {
      for (const e of events) clusters.add(e.cluster);
      return { accepted: events.length, duplicate: 0, rejected: 0, items: [] };
    };
    const result = await receiveLogs(request, submit, clusterAttributes);
    expect(result.events).toBeGreaterThan(0);
    expect([...clusters]).toEqual([want]);
  });
});
