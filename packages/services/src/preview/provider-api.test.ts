import { describe, expect, it } from "vitest";
import { openRequestsUrl, statusRequest, statusUrlOf } from "./provider-api";

const SHA = "b".repeat(40);

describe("provider API requests", () => {
  it("lists open requests in each provider's words", () => {
    expect(openRequestsUrl({ provider: "github", url: "https://api.github.com/" }, "acme/shop", 2, 50)).toBe("https://api.github.com/repos/acme/shop/pulls?state=open&per_page=50&page=2");
    expect(openRequestsUrl({ provider: "gitea", url: "https://gitea.example.com/api/v1" }, "acme/shop", 1, 50)).toBe("https://gitea.example.com/api/v1/repos/acme/shop/pulls?state=open&limit=50&page=1");
    expect(openRequestsUrl({ provider: "gitlab", url: "https://gitlab.example.com/api/v4" }, "group/sub/shop", 1, 50)).toBe(
      "https://gitlab.example.com/api/v4/projects/group%2Fsub%2Fshop/merge_requests?state=opened&per_page=50&page=1",
    );
  });
  it("posts a status as JSON to GitHub and Gitea, in GitLab's query words to GitLab", () => {
    const gh = statusUrlOf({ provider: "gitea", url: "https://gitea.example.com/api/v1" }, "acme/shop", SHA);
    expect(gh).toBe(`https://gitea.example.com/api/v1/repos/acme/shop/statuses/${SHA}`);
    expect(statusRequest(gh, "failure", "https://pr-1.p.example.com", "failed")).toEqual({
      url: gh,
      body: { state: "failure", target_url: "https://pr-1.p.example.com", description: "failed", context: "levelrail/preview" },
    });
    const gl = statusUrlOf({ provider: "gitlab", url: "https://gitlab.example.com/api/v4" }, "acme/shop", SHA);
    const r = statusRequest(gl, "failure", "https://pr-1.p.example.com", "failed");
    expect(r.body).toBeNull();
    expect(new URL(r.url).pathname).toBe(`/api/v4/projects/acme%2Fshop/statuses/${SHA}`);
    expect(Object.fromEntries(new URL(r.url).searchParams)).toEqual({ state: "failed", target_url: "https://pr-1.p.example.com", description: "failed", name: "levelrail/preview" });
  });
});
