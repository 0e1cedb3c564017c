import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { createLogger, scrubSecrets, type LogLevel } from "./logger";

function capture(level: LogLevel) {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (s: string) => void lines.push(s) });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const SECRETS = [
  "sy_ingest_0123456789abcdefSECRET",
  "hunter2-correct-horse",
  "sy_session=abcdef0123456789SESSION",
  "Bearer_value_XYZ987",
  "link-secret-0123456789",
];

describe("the JSON logger", () => {
  it("writes one JSON object per line with level, time and message", () => {
    const { logger, lines, records } = capture("info");
    logger.info({ source: "sim" }, "batch stored");
    logger.warn("slow");
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.endsWith("\n") && !l.slice(0, -1).includes("\n"))).toBe(true);
    expect(records()[0]).toMatchObject({
      level: "info",
      msg: "batch stored",
      source: "sim",
      service: "switchyard",
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(records()[1]).toMatchObject({ level: "warn", msg: "slow" });
  });

  it.each<[LogLevel, string[]]>([
    ["error", ["error"]],
    ["warn", ["error", "warn"]],
    ["info", ["error", "warn", "info"]],
    ["debug", ["error", "warn", "info", "debug"]],
    ["silent", []],
  ])("at level %s writes %j", (level, written) => {
    const { logger, records } = capture(level);
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    expect(
      records()
        .map((r) => r.level)
        .sort(),
    ).toEqual([...written].sort());
  });

  it("never writes secrets: credential fields are redacted at any depth, and credential text in messages is masked", () => {
    const { logger, lines } = capture("trace");
    logger.info({ token: SECRETS[0], password: SECRETS[1] }, "signed in");
    logger.info({ req: { headers: { authorization: `Bearer ${SECRETS[3]}`, cookie: SECRETS[2] } } }, "request");
    logger.info({ target: { config: { token: SECRETS[0] } }, user: { password: SECRETS[1] } }, "nested");
    logger.error(`push failed: Authorization: Bearer ${SECRETS[3]} refused`);
    logger.warn(`ingest token ${SECRETS[0]} was revoked`);
    logger.warn(`login with password=${SECRETS[1]} and secret: ${SECRETS[4]}`);
    logger.info({ "set-cookie": SECRETS[2], apiKey: SECRETS[4] }, "reply");
    const out = lines.join("");
    for (const s of SECRETS) expect(out).not.toContain(s.replace(/^sy_session=/, ""));
    expect(out).toContain("[redacted");
    expect(lines).toHaveLength(7);
  });

  it.each([
    ["Bearer abcdefgh", "Bearer [redacted]"],
    ["token=abc123&x=1", "token=[redacted]&x=1"],
    ['"password": "p4ss"', '"password": "[redacted]"'],
    ["worker w1 stored 10 blocks", "worker w1 stored 10 blocks"],
  ])("scrubs %j", (text, scrubbed) => {
    expect(scrubSecrets(text)).toBe(scrubbed);
  });

  it("takes its level from SWITCHYARD_LOG_LEVEL (default info) and refuses an unknown one", () => {
    expect(parseEnv({}).SWITCHYARD_LOG_LEVEL).toBe("info");
    expect(parseEnv({ SWITCHYARD_LOG_LEVEL: "debug" }).SWITCHYARD_LOG_LEVEL).toBe("debug");
    expect(() => parseEnv({ SWITCHYARD_LOG_LEVEL: "loud" })).toThrow(/SWITCHYARD_LOG_LEVEL/);
  });
});
