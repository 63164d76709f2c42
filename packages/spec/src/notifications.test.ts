import { describe, expect, it } from "vitest";
import { notificationChannelInput, payloadOf, slackBodyOf, subjectOf, textOf } from "./notifications";

const org = { id: "o1", name: "acme" };
const failed = {
  ...payloadOf("deploy.failed", org, "readiness check failed", new Date("2026-01-02T03:04:05Z")),
  project: { id: "p1", name: "shop" },
  environment: { id: "e1", name: "production" },
  service: { id: "s1", name: "web", app: "shop" },
  release: { id: "r1", image: "registry.example.com/shop:1.4.2", outcome: "failed" },
};

describe("notification channel input", () => {
  it("takes a webhook with defaults and an email channel", () => {
    expect(notificationChannelInput.parse({ kind: "webhook", name: "ops", url: "https://hooks.example.com/x", events: ["deploy.failed"] })).toEqual({
      kind: "webhook",
      name: "ops",
      url: "https://hooks.example.com/x",
      events: ["deploy.failed"],
      format: "json",
    });
    expect(
      notificationChannelInput.parse({ kind: "email", name: "mail", host: "smtp.example.com", port: 587, from: "a@example.com", to: ["b@example.com"], events: ["backup.failed"] }),
    ).toMatchObject({ secure: false });
  });
  it("refuses a non-http URL, an unknown event, no events and a webhook with email fields", () => {
    const bad = (input: object) => notificationChannelInput.safeParse({ kind: "webhook", name: "x", url: "https://h.example.com", events: ["deploy.failed"], ...input }).error?.issues[0]?.path;
    expect(bad({ url: "ftp://h.example.com/" })).toEqual(["url"]);
    expect(bad({ url: "file:///etc/passwd" })).toEqual(["url"]);
    expect(bad({ events: ["deploy.exploded"] })).toEqual(["events", 0]);
    expect(bad({ events: [] })).toEqual(["events"]);
    expect(bad({ host: "smtp.example.com" })).toEqual([]);
  });
  it("has no allowPrivate: private targets are the installation's setting, so a request sending it is refused", () => {
    const r = notificationChannelInput.safeParse({ kind: "webhook", name: "x", url: "https://h.example.com", events: ["deploy.failed"], allowPrivate: true });
    expect(r.error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["allowPrivate"] });
  });
});

describe("what a notification says", () => {
  it("an email subject names the event, app/service and environment", () => {
    expect(subjectOf(failed)).toBe("[Levelrail] deploy failed: shop/web in production");
  });
  it("the text carries the message and the names", () => {
    const text = textOf(failed);
    expect(text).toContain("readiness check failed");
    expect(text).toContain("Image: registry.example.com/shop:1.4.2");
    expect(text).toContain("Environment: production");
  });
  it("a Slack body is {text} with the summary in bold", () => {
    expect(slackBodyOf(failed).text.split("\n")[0]).toBe("*deploy failed: shop/web in production*");
  });
});
