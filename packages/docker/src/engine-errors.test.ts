import { describe, expect, it } from "vitest";
import { unusableContainerReason } from "./engine-errors";

describe("unusableContainerReason", () => {
  it.each([
    ["setns after an engine restart (moby#43402)", "OCI runtime exec failed: exec failed: unable to start container process: error starting setns process: fork/exec /proc/self/exe: no such file or directory: unknown\r\n", true],
    ["older runc wording", 'OCI runtime exec failed: exec failed: container_linux.go:367: starting container process caused: process_linux.go:96: starting setns process caused: fork/exec /proc/self/exe: no such file or directory: unknown', true],
    ["a missing executable is the image's, not the container's", 'OCI runtime exec failed: exec failed: unable to start container process: exec: "pg_isready": executable file not found in $PATH: unknown', false],
    ["the command's own output", "127.0.0.1:5432 - no response", false],
    ["the command printing the words alone", "starting setns process", false],
  ])("%s", (_what, output, unusable) => {
    expect(unusableContainerReason(output) !== null).toBe(unusable);
  });
});
