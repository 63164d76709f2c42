import { describe, expect, it } from "vitest";
import { sourceErrorField, sourceFormInput, sourceFormValues } from "./source-form";

const blank = sourceFormValues({ image: "nginx:1" });

describe("the git source form", () => {
  it("starts from the defaults for a service on an image, and from the source for a git one", () => {
    expect(blank).toEqual({ url: "", ref: "main", path: ".", dockerfile: "Dockerfile", credentialId: "", buildArgs: "", target: "", pollIntervalSeconds: "", apiProvider: "", apiUrl: "", apiCredentialId: "" });
    const git = {
      url: "git@h:r.git",
      ref: "dev",
      path: "web",
      dockerfile: "Containerfile",
      credentialId: "c",
      buildArgs: ["A", "B"],
      target: "run",
      pollIntervalSeconds: 300,
      apiProvider: "gitea" as const,
      apiUrl: "https://gitea.example.com/api/v1",
      apiCredentialId: "t",
      sourceId: "s",
      webhookPath: "/p",
      lastError: "",
      lastSeenCommit: null,
    };
    expect(sourceFormValues({ git })).toEqual({
      url: "git@h:r.git",
      ref: "dev",
      path: "web",
      dockerfile: "Containerfile",
      credentialId: "c",
      buildArgs: "A B",
      target: "run",
      pollIntervalSeconds: "300",
      apiProvider: "gitea",
      apiUrl: "https://gitea.example.com/api/v1",
      apiCredentialId: "t",
    });
  });

  it.each([
    [{ url: "https://git.example.com/a.git" }, { ok: { url: "https://git.example.com/a.git", buildArgs: [], target: null, pollIntervalSeconds: null, credentialId: null } }],
    [{ url: "https://git.example.com/a.git", buildArgs: "A, B  C", target: " run ", pollIntervalSeconds: "600" }, { ok: { buildArgs: ["A", "B", "C"], target: "run", pollIntervalSeconds: 600 } }],
    [{ url: "" }, { error: "url" }],
    [{ url: "ext::sh" }, { error: "url" }],
    [{ url: "https://git.example.com/a.git", ref: "a..b" }, { error: "ref" }],
    [{ url: "https://git.example.com/a.git", path: "../x" }, { error: "path" }],
    [{ url: "https://git.example.com/a.git", buildArgs: "A-B" }, { error: "buildArgs" }],
    [{ url: "https://git.example.com/a.git", pollIntervalSeconds: "5" }, { error: "pollIntervalSeconds" }],
    [{ url: "https://git.example.com/a.git", pollIntervalSeconds: "often" }, { error: "pollIntervalSeconds" }],
    [{ url: "https://git.example.com/a.git", apiProvider: "github", apiUrl: " https://api.github.com " }, { ok: { apiProvider: "github", apiUrl: "https://api.github.com", apiCredentialId: null } }],
    [{ url: "https://git.example.com/a.git", apiProvider: "github" }, { error: "apiUrl" }],
    [{ url: "https://git.example.com/a.git", apiProvider: "github", apiUrl: "ftp://api.github.com" }, { error: "apiUrl" }],
    [{ url: "https://git.example.com/a.git", apiUrl: "https://api.github.com" }, { error: "apiProvider" }],
  ])("%j", (values, want) => {
    const r = sourceFormInput({ ...blank, ...values });
    if ("ok" in want) expect(r).toEqual({ input: expect.objectContaining(want.ok) });
    else expect(Object.keys("errors" in r ? r.errors : {})).toEqual([want.error]);
  });

  it("puts the API's field on the form's", () => {
    expect(sourceErrorField("source.git.url")).toBe("url");
    expect(sourceErrorField("source.git.buildArgs.0")).toBe("buildArgs");
    expect(sourceErrorField("image")).toBe("form");
    expect(sourceErrorField(undefined)).toBe("form");
  });
});
