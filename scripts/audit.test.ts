import { describe, expect, it } from "vitest";
import { auditVerdict } from "./audit";

describe("auditVerdict", () => {
  it.each<[string, string, "fail" | "pass" | "unchecked", RegExp]>([
    [
      "a high advisory fails",
      JSON.stringify({
        metadata: { vulnerabilities: { info: 0, low: 1, moderate: 0, high: 1, critical: 0, total: 2 } },
      }),
      "fail",
      /1 high or critical.*1 low, 0 moderate, 1 high/,
    ],
    [
      "a critical advisory fails",
      JSON.stringify({ metadata: { vulnerabilities: { high: 0, critical: 2, total: 2 } } }),
      "fail",
      /2 high or critical/,
    ],
    [
      "low and moderate pass",
      JSON.stringify({ metadata: { vulnerabilities: { low: 3, moderate: 1, high: 0, critical: 0, total: 4 } } }),
      "pass",
      /no high or critical/,
    ],
    [
      "an endpoint error is not checked",
      JSON.stringify({ message: "405 Method Not Allowed - POST /-/npm/v1/security/advisories/bulk" }),
      "unchecked",
      /did not answer \(405/,
    ],
    ["no JSON is not checked", "npm error something", "unchecked", /no report/],
  ])("%s", (_name, stdout, status, line) => {
    const v = auditVerdict(stdout);
    expect(v.status).toBe(status);
    expect(v.line).toMatch(line);
  });
});
