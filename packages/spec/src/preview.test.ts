import { describe, expect, it } from "vitest";
import { normalizeRepo, repoPathOf, previewDomainProblem, previewEnvironmentName, previewRoutes, previewSettingsInput, previewUrl, sweepDecision } from "./preview";

describe("preview naming", () => {
  it("request n: environment pr-n; the first service by name routes pr-n.<domain>, the others <service>-pr-n.<domain>", () => {
    expect(previewEnvironmentName(12)).toBe("pr-12");
    expect([...previewRoutes(["web", "api"], 12, "preview.example.com")]).toEqual([
      ["api", "pr-12.preview.example.com"],
      ["web", "web-pr-12.preview.example.com"],
    ]);
    expect([...previewRoutes([], 1, "x.com")]).toEqual([]);
    expect(previewUrl(3, "preview.localhost")).toBe("http://pr-3.preview.localhost");
    expect(previewUrl(3, "preview.example.com")).toBe("https://pr-3.preview.example.com");
  });
  it("a repository is one whatever URL names it", () => {
    const forms = ["https://github.com/Acme/Shop.git", "https://user:token@github.com/acme/shop", "git@github.com:acme/shop.git", "ssh://git@github.com:22/acme/shop.git", "http://github.com/acme/shop/"];
    expect(new Set(forms.map(normalizeRepo))).toEqual(new Set(["github.com/acme/shop"]));
    expect(normalizeRepo("http://127.0.0.1:8123/acme/other.git")).toBe("127.0.0.1/acme/other");
    expect(repoPathOf("git@gitlab.example.com:Group/Sub/Shop.git")).toBe("Group/Sub/Shop");
    expect(repoPathOf("https://github.com/acme/shop")).toBe("acme/shop");
  });
  it("the domain must be under a base domain of the installation (or *.localhost), checked without connecting", () => {
    expect(previewDomainProblem("preview.example.com", ["example.com"])).toBeNull();
    expect(previewDomainProblem("example.com", ["example.com"])).toBeNull();
    expect(previewDomainProblem("preview.localhost", [])).toBeNull();
    expect(previewDomainProblem("evil.com", ["example.com"])).toContain("not under a base domain");
    expect(previewDomainProblem("notexample.com", ["example.com"])).toContain("not under a base domain");
    expect(previewDomainProblem("x.com", [])).toContain("no base domains");
    expect(previewSettingsInput.safeParse({ baseEnvironmentId: "00000000-0000-4000-8000-000000000000", domain: "127.0.0.1" }).success).toBe(false);
    expect(previewSettingsInput.parse({ baseEnvironmentId: "00000000-0000-4000-8000-000000000000", domain: "P.Example.com" })).toEqual({
      baseEnvironmentId: "00000000-0000-4000-8000-000000000000",
      domain: "p.example.com",
      max: 5,
      ttlHours: 168,
    });
  });
});

describe("sweepDecision", () => {
  const now = new Date("2026-12-02T12:00:00Z");
  const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);
  const rows: [string, { number: number; state: "open" | "closed" | "refused"; updatedAt: Date }, number | null, number[] | null, boolean][] = [
    ["fresh, listed", { number: 1, state: "open", updatedAt: hoursAgo(1) }, 24, [1, 2], false],
    ["fresh, no provider API", { number: 1, state: "open", updatedAt: hoursAgo(1) }, 24, null, false],
    ["past its TTL, no provider API", { number: 1, state: "open", updatedAt: hoursAgo(25) }, 24, null, true],
    ["exactly at its TTL", { number: 1, state: "open", updatedAt: hoursAgo(24) }, 24, null, true],
    ["past its TTL though still listed", { number: 1, state: "open", updatedAt: hoursAgo(30) }, 24, [1], true],
    ["no longer listed", { number: 3, state: "open", updatedAt: hoursAgo(1) }, 24, [1, 2], true],
    ["nothing open at the provider", { number: 3, state: "open", updatedAt: hoursAgo(1) }, 24, [], true],
    // A stacked request (its base is another request's branch) is listed by its own number: kept.
    ["stacked request still open", { number: 4, state: "open", updatedAt: hoursAgo(1) }, 24, [4], false],
    ["refused and no longer listed", { number: 5, state: "refused", updatedAt: hoursAgo(1) }, 24, [], true],
    ["closed already", { number: 6, state: "closed", updatedAt: hoursAgo(100) }, 24, [], false],
    ["the project's settings are gone", { number: 7, state: "open", updatedAt: hoursAgo(1) }, null, [7], true],
  ];
  it.each(rows)("%s", (_name, p, ttl, open, close) => {
    const d = sweepDecision(p, ttl, now, open === null ? null : new Set(open));
    expect(d.close).toBe(close);
    if (d.close) expect(d.reason).toMatch(/time to live|no longer open|no longer set up/);
  });
});
