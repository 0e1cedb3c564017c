// `npm run audit` (part of `npm test`): npm audit of the production dependencies, failing on any high or critical
// advisory. When the registry's advisory service cannot be reached (an offline mirror, or a registry that answers
// the audit endpoint with an error) it says so in one line and does not fail: it has nothing to judge.
import { spawnSync } from "node:child_process";

type AuditJson = {
  metadata?: { vulnerabilities?: Record<string, number> };
  error?: { summary?: string; detail?: string };
  message?: string;
};

/** The verdict on `npm audit --json`'s output: fail with the counts, pass, or not checked with the reason. */
export function auditVerdict(stdout: string): { status: "fail" | "pass" | "unchecked"; line: string } {
  let parsed: AuditJson;
  try {
    parsed = JSON.parse(stdout) as AuditJson;
  } catch {
    return { status: "unchecked", line: "npm audit printed no report" };
  }
  const counts = parsed.metadata?.vulnerabilities;
  if (!counts) {
    const why = parsed.message ?? parsed.error?.summary ?? "no report";
    return { status: "unchecked", line: `the advisory service did not answer (${why.slice(0, 160)})` };
  }
  const high = (counts.high ?? 0) + (counts.critical ?? 0);
  const all = Object.entries(counts)
    .filter(([k]) => k !== "total")
    .map(([k, n]) => `${n} ${k}`)
    .join(", ");
  return high > 0
    ? { status: "fail", line: `${high} high or critical advisories in production dependencies (${all})` }
    : { status: "pass", line: `no high or critical advisory in production dependencies (${all})` };
}

function main(): number {
  const r = spawnSync("npm", ["audit", "--omit=dev", "--json"], { encoding: "utf8" });
  const verdict = auditVerdict(r.stdout ?? "");
  console.log(`audit: ${verdict.status === "unchecked" ? "not checked: " : ""}${verdict.line}`);
  if (verdict.status === "fail") spawnSync("npm", ["audit", "--omit=dev", "--audit-level=high"], { stdio: "inherit" });
  return verdict.status === "fail" ? 1 : 0;
}

if (process.argv[1]?.endsWith("audit.ts")) process.exit(main());
