import * as spec from "@levelrail/spec/database";
import { describe, expect, it } from "vitest";
import { ApiError } from "./fetcher";
import { apiErrors, toInput } from "./new-database-input";
import { DEFAULT_SCHEDULE } from "./schedule-values";

const values = (over: Partial<Parameters<typeof toInput>[0]> = {}) => ({ name: "shop-db", version: "17", image: "", placement: "", ...over });

describe("the New database form's placement", () => {
  it("sends none when left empty, and the labels as an object when given a line each", () => {
    expect(toInput(values(), false, DEFAULT_SCHEDULE, spec)).toEqual({ input: { name: "shop-db", engine: "postgres", version: "17" } });
    expect(toInput(values({ placement: "disk=ssd\n zone = eu-1 \n" }), false, DEFAULT_SCHEDULE, spec)).toEqual({ input: { name: "shop-db", engine: "postgres", version: "17", placement: { disk: "ssd", zone: "eu-1" } } });
  });

  it("puts a malformed line and a product's own label under the field, sending nothing", () => {
    expect(toInput(values({ placement: "disk" }), false, DEFAULT_SCHEDULE, spec)).toEqual({ errors: { placement: "line 1: must be key=value, like zone=eu-1" } });
    const own = toInput(values({ placement: "levelrail.mtu=1500" }), false, DEFAULT_SCHEDULE, spec);
    expect("errors" in own && own.errors.placement).toMatch(/^levelrail\.mtu: /);
  });

  it("shows the API's 409 on one engine under the field", () => {
    const err = new ApiError(409, "conflict", "placement: placing on node labels needs a Docker Swarm; this installation runs on one engine (see Nodes)", "placement");
    expect(apiErrors(err)).toEqual({ placement: "placing on node labels needs a Docker Swarm; this installation runs on one engine (see Nodes)" });
  });
});
