import { describe, expect, it } from "vitest";
import { servicePatch } from "@levelrail/spec/service";
import { parsePlacement, placementSummary, placementText, scaleApiError, scaleErrors, scaleInput, scaleValues } from "./scale-form";

/** The form's values through its own parsing and the API's schema, as a submit does. */
function checked(replicas: string, placement: string) {
  const typed = scaleInput({ replicas, placement });
  if ("error" in typed) return { typed: typed.error };
  const parsed = servicePatch.safeParse(typed.input);
  return parsed.success ? { data: parsed.data } : { errors: scaleErrors(parsed.error.issues) };
}

describe("replicas and placement form", () => {
  it("values round-trip: a placement is key=value lines in key order; empty replicas is 1", () => {
    const s = { replicas: 3, placement: { zone: "eu-1", disk: "ssd" } };
    expect(scaleValues(s)).toEqual({ replicas: "3", placement: "disk=ssd\nzone=eu-1" });
    expect(checked("3", "disk=ssd\nzone=eu-1")).toEqual({ data: s });
    expect(checked(" ", "")).toEqual({ data: { replicas: 1, placement: {} } });
    expect(placementText({})).toBe("");
  });

  it("reads lines leniently: blank lines skipped, spaces around '=' dropped, the first '=' splits", () => {
    expect(parsePlacement("\n zone = eu-1 \r\n\n")).toEqual({ placement: { zone: "eu-1" } });
    expect(parsePlacement("rack=")).toEqual({ placement: { rack: "" } });
    expect(parsePlacement("zone=a=b")).toEqual({ placement: { zone: "a=b" } });
  });

  it("says which line is not key=value, or repeats a key", () => {
    expect(parsePlacement("zone=a\nssd")).toEqual({ error: "line 2: must be key=value, like zone=eu-1" });
    expect(parsePlacement("=a")).toEqual({ error: "line 1: the label key is missing before '='" });
    expect(parsePlacement("zone=a\nzone=b")).toEqual({ error: "line 2: zone is given twice" });
    expect(checked("1", "ssd")).toEqual({ typed: "line 1: must be key=value, like zone=eu-1" });
  });

  it("the API schema's errors land on their field, a label's naming it", () => {
    expect(checked("0", "")).toEqual({ errors: { replicas: "must be 1-100" } });
    expect(checked("two", "")).toEqual({ errors: { replicas: "must be a whole number of replicas" } });
    expect(checked("1.5", "")).toEqual({ errors: { replicas: "must be a whole number of replicas" } });
    expect(checked("1", "zone=a==b")).toMatchObject({ errors: { placement: expect.stringMatching(/^zone: must be at most 256 printable characters/) } });
    expect(checked("1", "levelrail.mtu=1500")).toMatchObject({ errors: { placement: expect.stringMatching(/^levelrail\.mtu: must not start with 'levelrail\.'/) } });
    const eleven = Array.from({ length: 11 }, (_, i) => `k${i}=v`).join("\n");
    expect(checked("1", eleven)).toEqual({ errors: { placement: "must have at most 10 labels" } });
  });

  it("an API error lands on its field without its prefix; one about another field is not the form's", () => {
    expect(scaleApiError("replicas", "replicas: more than 1 needs a Docker Swarm; this installation runs on one engine (see Nodes)")).toEqual({
      field: "replicas",
      message: "more than 1 needs a Docker Swarm; this installation runs on one engine (see Nodes)",
    });
    expect(scaleApiError("placement.zone", "placement.zone: must be …")).toEqual({ field: "placement", message: "zone: must be …" });
    expect(scaleApiError("port", "port: must be 1-65535")).toBeNull();
    expect(scaleApiError(undefined, "internal error")).toBeNull();
  });

  it("the page says 'any node' for no placement", () => {
    expect(placementSummary({})).toBe("any node");
    expect(placementSummary({ zone: "a", disk: "ssd" })).toBe("disk=ssd, zone=a");
  });
});
