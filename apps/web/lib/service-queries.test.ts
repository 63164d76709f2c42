import { describe, expect, it } from "vitest";
import type { StatusView } from "@levelrail/spec/service";
import { FLEET_INTERVAL_MS, LIVE_INTERVAL_MS } from "./keys";
import { liveInterval } from "./service-queries";

const status = (phase: StatusView["phase"]) => ({ phase }) as StatusView;

describe("liveInterval", () => {
  it("polls every second while a deploy is in flight", () => {
    expect(liveInterval(status("pending"))).toBe(LIVE_INTERVAL_MS);
    expect(liveInterval(status("deploying"))).toBe(LIVE_INTERVAL_MS);
  });
  it("polls at the fleet's pace otherwise", () => {
    for (const phase of ["running", "failed", "stopped"] as const) expect(liveInterval(status(phase))).toBe(FLEET_INTERVAL_MS);
    expect(liveInterval(undefined)).toBe(FLEET_INTERVAL_MS);
  });
});
