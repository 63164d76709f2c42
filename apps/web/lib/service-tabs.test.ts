import { describe, expect, it } from "vitest";
import { formatSpan } from "./format";
import { serviceHref } from "./paths";
import { SERVICE_TABS, serviceTab } from "./service-tabs";

describe("service tabs", () => {
  it.each([
    [null, "overview"],
    ["", "overview"],
    ["logs", "logs"],
    ["settings", "settings"],
    ["LOGS", "overview"],
    ["nope", "overview"],
  ])("?tab=%s opens %s", (param, tab) => expect(serviceTab(param)).toBe(tab));

  it("links each tab by ?tab=, Overview by the bare URL", () => {
    const web = { environmentId: "e1", name: "web" };
    expect(SERVICE_TABS.map((t) => serviceHref(web, t.id))).toEqual([
      "/environments/e1/services/web",
      "/environments/e1/services/web?tab=deploys",
      "/environments/e1/services/web?tab=builds",
      "/environments/e1/services/web?tab=logs",
      "/environments/e1/services/web?tab=environment",
      "/environments/e1/services/web?tab=hooks",
      "/environments/e1/services/web?tab=settings",
    ]);
  });
});

describe("formatSpan", () => {
  it.each([
    [null, "—"],
    [30_000, "under a minute"],
    [45 * 60_000, "45 min"],
    [13 * 3_600_000, "13.0 h"],
    [3 * 86_400_000, "3.0 days"],
  ])("%s ms reads %s", (ms, text) => expect(formatSpan(ms)).toBe(text));
});
