import { describe, expect, it } from "vitest";
import { serviceCreate, servicePatch } from "@levelrail/spec/service";
import { argvText, hookDomainApiError, hookDomainErrors, hookDomainInput, parseArgv, parseDomains } from "./hooks-form";

describe("hook commands", () => {
  it("reads one argument per line, trimmed, blank lines skipped; empty is no hook", () => {
    expect(parseArgv("npm\n  run \n\nmigrate\r\n")).toEqual({ argv: ["npm", "run", "migrate"] });
    expect(parseArgv("sh\n-c\necho a; touch /pwned")).toEqual({ argv: ["sh", "-c", "echo a; touch /pwned"] });
    expect(parseArgv("  \n ")).toEqual({ argv: null });
  });

  it("reads a JSON array as it is, the `[` command as lines, and broken JSON as an error", () => {
    expect(parseArgv('["echo", " two  spaces ", "a\\nb"]')).toEqual({ argv: ["echo", " two  spaces ", "a\nb"] });
    expect(parseArgv("[\n-f\n/ready\n]")).toEqual({ argv: ["[", "-f", "/ready", "]"] });
    expect(parseArgv('["npm", "run",')).toEqual({ error: expect.stringMatching(/^must be a JSON array of strings/) });
    expect(parseArgv('{"a": 1}')).toEqual({ argv: ['{"a": 1}'] });
  });

  it("writes commands back as text that parses to the same arguments", () => {
    for (const argv of [["npm", "run", "migrate"], ["echo", " padded "], ["sh", "-c", "a\nb"], ["[", "]"], ["echo", ""]]) {
      expect(parseArgv(argvText(argv))).toEqual({ argv });
    }
    expect(argvText(["npm", "run", "migrate"])).toBe("npm\nrun\nmigrate");
    expect(argvText(null)).toBe("");
  });
});

describe("unreadable commands", () => {
  it("are reported by field", () => {
    expect(hookDomainInput({ preDeploy: "[oops", postDeploy: "ok", timeoutSeconds: "5", domains: "" }).unreadable).toEqual({
      preDeploy: expect.stringMatching(/JSON array/),
    });
  });
});

describe("domains", () => {
  it("reads one per line", () => {
    expect(parseDomains("shop.example.com\n\n  api.localhost \r\n")).toEqual(["shop.example.com", "api.localhost"]);
  });
});

describe("errors by field", () => {
  it("places the API schema's errors on the field and names the argument or domain", () => {
    const values = { preDeploy: '["npm", ""]', postDeploy: "", timeoutSeconds: "0", domains: "ok.example.com\nnot a domain" };
    const { input, unreadable } = hookDomainInput(values);
    expect(unreadable).toEqual({});
    const parsed = servicePatch.safeParse(input);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const { errors, rest } = hookDomainErrors(parsed.error, input.domains);
    expect(rest).toEqual([]);
    expect(errors.preDeploy).toMatch(/^argument 2: /);
    expect(errors.timeoutSeconds).toBeDefined();
    expect(errors.domains).toBe("not a domain: must be a domain name like shop.example.com");
    expect(errors.postDeploy).toBeUndefined();
  });

  it("leaves other fields' errors to the caller", () => {
    const parsed = serviceCreate.safeParse({ name: "web", app: "shop", image: "nginx", port: 80, ...hookDomainInput({ preDeploy: "", postDeploy: "", timeoutSeconds: "", domains: "" }).input });
    expect(parsed.success).toBe(true);
    const bad = serviceCreate.safeParse({ name: "Web!", app: "shop", image: "nginx", port: 80, domains: ["x y"] });
    expect(bad.success).toBe(false);
    if (bad.success) return;
    const { errors, rest } = hookDomainErrors(bad.error, ["x y"]);
    expect(errors.domains).toMatch(/^x y: /);
    expect(rest.map((i) => i.path[0])).toEqual(["name"]);
  });

  it("maps an API error's field to the form field", () => {
    expect(hookDomainApiError("hooks.postDeploy.1", "hooks.postDeploy.1: must not contain NUL")).toEqual({ field: "postDeploy", message: "argument 2: must not contain NUL" });
    expect(hookDomainApiError("domains.0", "domains.0: must be a domain name like shop.example.com")).toEqual({
      field: "domains",
      message: "domain 1: must be a domain name like shop.example.com",
    });
    expect(hookDomainApiError("hooks.timeoutSeconds", "hooks.timeoutSeconds: too big")).toEqual({ field: "timeoutSeconds", message: "too big" });
    expect(hookDomainApiError("image", "image: bad")).toBeNull();
    expect(hookDomainApiError(undefined, "oops")).toBeNull();
  });
});
