import { describe, expect, it } from "vitest";
import { DEFAULT_RESOURCES, servicePatch } from "@levelrail/spec/service";
import { capabilitiesText, limitApiError, limitErrors, limitInput, limitValues, memoryText } from "./limits-form";

const checked = (v: Parameters<typeof limitInput>[0]) => servicePatch.safeParse(limitInput(v));

describe("limits form", () => {
  it("empty memory and CPUs are no limit, empty processes the default; values round-trip", () => {
    const parsed = checked({ memoryMb: " ", cpus: "", pids: "", capAdd: [] });
    expect(parsed.success && parsed.data.resources).toEqual(DEFAULT_RESOURCES);
    const r = { memoryMb: 512, cpus: 0.5, pids: 200, capAdd: ["NET_RAW" as const] };
    const again = checked(limitValues(r));
    expect(again.success && again.data.resources).toEqual(r);
    expect(limitValues(DEFAULT_RESOURCES)).toEqual({ memoryMb: "", cpus: "", pids: "4096", capAdd: [] });
  });

  it("schema errors land on their field; text that is no number is refused, not read as 0", () => {
    for (const [values, field] of [
      [{ memoryMb: "8", cpus: "", pids: "", capAdd: [] }, "memoryMb"],
      [{ memoryMb: "lots", cpus: "", pids: "", capAdd: [] }, "memoryMb"],
      [{ memoryMb: "", cpus: "0", pids: "", capAdd: [] }, "cpus"],
      [{ memoryMb: "", cpus: "", pids: "1.5", capAdd: [] }, "pids"],
    ] as const) {
      const parsed = checked({ ...values, capAdd: [] });
      expect(parsed.success).toBe(false);
      if (!parsed.success) expect(Object.keys(limitErrors(parsed.error).errors)).toEqual([field]);
    }
    const low = checked({ memoryMb: "8", cpus: "", pids: "", capAdd: [] });
    expect(!low.success && limitErrors(low.error).errors.memoryMb).toBe("must be at least 16 MiB");
  });

  it("places the API's errors by field, without the field prefix; other fields are not its", () => {
    expect(limitApiError("resources.capAdd.0", "resources.capAdd.0: must be one of …")).toEqual({ field: "capAdd", message: "must be one of …" });
    expect(limitApiError("resources.pids", "resources.pids: must be at least 16")).toEqual({ field: "pids", message: "must be at least 16" });
    expect(limitApiError("port", "port: bad")).toBeNull();
    expect(limitApiError(undefined, "boom")).toBeNull();
  });

  it("shows limits as words", () => {
    expect(memoryText(null)).toBe("no limit");
    expect(memoryText(256)).toBe("256 MiB");
    expect(capabilitiesText([])).toBe("none");
  });
});
