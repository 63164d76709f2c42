import { describe, expect, it } from "vitest";
import { FakeEngine } from "./fake";
import { OCI_CREATED_LABEL, imageBuildTime } from "./images";

describe("imageBuildTime", () => {
  const engine = "2026-10-01T12:00:00.123456789Z";
  it.each([
    ["the label wins when it parses", { [OCI_CREATED_LABEL]: "2026-09-30T08:15:00Z" }, engine, "2026-09-30T08:15:00.000Z"],
    ["a label with an offset", { [OCI_CREATED_LABEL]: "2026-09-30T10:15:00+02:00" }, engine, "2026-09-30T08:15:00.000Z"],
    ["no label: the engine's time", {}, engine, "2026-10-01T12:00:00.123Z"],
    ["no labels at all", null, engine, "2026-10-01T12:00:00.123Z"],
    ["a label that is no time", { [OCI_CREATED_LABEL]: "yesterday" }, engine, "2026-10-01T12:00:00.123Z"],
    ["an empty label", { [OCI_CREATED_LABEL]: "" }, engine, "2026-10-01T12:00:00.123Z"],
    ["a date without a time", { [OCI_CREATED_LABEL]: "2026-09-30" }, engine, "2026-10-01T12:00:00.123Z"],
    ["the engine's zero time (a reproducible build)", {}, "0001-01-01T00:00:00Z", null],
    ["the Unix epoch (SOURCE_DATE_EPOCH=0)", {}, "1970-01-01T00:00:00Z", null],
    ["nothing at all", undefined, undefined, null],
  ] as const)("%s", (_, labels, created, want) => {
    expect(imageBuildTime(labels, created)?.toISOString() ?? null).toBe(want);
  });

  it("the fake engine answers by reference or id, the label over its time, null for an image it lacks or has no time for", async () => {
    const e = new FakeEngine();
    e.images.set("shop:1", "sha256:1");
    e.images.set("shop:2", "sha256:2");
    e.imageTimes.set("sha256:1", engine);
    e.imageLabels.set("sha256:1", { [OCI_CREATED_LABEL]: "2026-09-30T08:15:00Z" });
    e.imageTimes.set("sha256:2", engine);
    expect((await e.imageCreated("shop:1"))?.toISOString()).toBe("2026-09-30T08:15:00.000Z");
    expect((await e.imageCreated("sha256:1"))?.toISOString()).toBe("2026-09-30T08:15:00.000Z");
    expect((await e.imageCreated("shop:2"))?.toISOString()).toBe("2026-10-01T12:00:00.123Z");
    e.images.set("shop:3", "sha256:3");
    expect(await e.imageCreated("shop:3")).toBeNull();
    expect(await e.imageCreated("nope:1")).toBeNull();
  });
});
