import { describe, expect, it } from "vitest";
import { methodLabel, routeLabel } from "./route-label";

describe("routeLabel", () => {
  it.each([
    ["/", "/"],
    ["/?range=5m", "/"],
    ["/metrics", "/metrics"],
    ["/api/ingest", "/api/ingest"],
    ["/api/otlp/v1/logs", "/api/otlp"],
    ["/api/trpc/workers.list,sessions.list?batch=1", "/api/trpc"],
    ["/api/made-up/123", "/api/other"],
    ["/api", "/api/other"],
    ["/sessions", "/sessions"],
    ["/sessions/s-123?turn=4", "/sessions/[id]"],
    ["/workers/w1", "/workers/[id]"],
    ["/_next/static/chunks/abc.js", "/_next"],
    ["/wp-admin/setup.php", "other"],
    ["/" + "x".repeat(5000), "other"],
    [undefined, "/"],
  ])("%s → %s", (url, label) => {
    expect(routeLabel(url)).toBe(label);
  });
});

describe("methodLabel", () => {
  it.each([
    ["get", "GET"],
    ["POST", "POST"],
    ["PROPFIND", "other"],
    [undefined, "other"],
  ])("%s → %s", (m, label) => {
    expect(methodLabel(m)).toBe(label);
  });
});
