import { describe, expect, it } from "vitest";
import { API_POLICY, isPublicPage, pagePolicy } from "./csp";

describe("page content security policy", () => {
  it("allows scripts only from this origin or with the nonce, never inline or eval in production; never framed", () => {
    const p = pagePolicy("abc123", false);
    expect(p).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(p).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(p).toContain("frame-ancestors 'none'");
    expect(p).toContain("object-src 'none'");
    expect(pagePolicy("n", true)).toContain("'unsafe-eval'");
  });

  it("API answers run nothing", () => {
    expect(API_POLICY).toContain("default-src 'none'");
  });

  it.each([
    ["/login", true],
    ["/setup", true],
    ["/", false],
    ["/admin", false],
    ["/login/../admin", false],
    ["/setup/x", false],
  ])("%s is public: %s", (path, pub) => {
    expect(isPublicPage(path)).toBe(pub);
  });
});
