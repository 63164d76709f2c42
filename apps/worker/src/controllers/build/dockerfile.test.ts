import { describe, expect, it } from "vitest";
import { reservedBuildArg } from "@levelrail/spec/git";
import { checkDockerfile } from "./dockerfile";

const rows: [string, string, number | null, RegExp?][] = [
  ["a plain Dockerfile", "FROM alpine\nRUN make\n", null],
  ["a cache mount (namespaced by the engine's frontend)", "FROM alpine\nRUN --mount=type=cache,target=/root/.cache,id=shared make\n", null],
  ["a bind and a tmpfs mount", "FROM alpine\nRUN --mount=type=bind,source=.,target=/src --mount=type=tmpfs,target=/tmp make\n", null],
  ["a comment that is not a directive", "# build the shop\nFROM alpine\n", null],
  ["a command mentioning a secret mount after its flags", "FROM alpine\nRUN echo --mount=type=secret\n", null],
  ["a syntax directive", "# syntax=docker/dockerfile:1\nFROM alpine\n", 1, /syntax directive/],
  ["a syntax directive, spaced and upper-case", "  #   SYNTAX =  evil/frontend\nFROM alpine\n", 1, /syntax directive/],
  ["a syntax directive after the escape directive", "# escape=`\n# syntax=evil/frontend\nFROM alpine\n", 2, /syntax directive/],
  ["a syntax directive after a BOM", "\uFEFF# syntax=evil/frontend\nFROM alpine\n", 1, /syntax directive/],
  ["a syntax-looking comment further down (refused: BuildKit's detection is loose)", "FROM alpine\n# syntax=evil/frontend\nRUN make\n", 2, /syntax directive/],
  ["a secret mount", "FROM alpine\nRUN --mount=type=secret,id=npm cat /run/secrets/npm\n", 2, /type=secret: builds get no secrets/],
  ["an ssh mount", "FROM alpine\n\nRUN --mount=type=ssh git clone git@host:x\n", 3, /type=ssh: builds get no SSH agent/],
  ["an ssh mount in upper case", "FROM alpine\nrun --mount=TYPE=SSH true\n", 2, /type=ssh/],
  ["a secret mount second among the flags", "FROM alpine\nRUN --mount=type=cache,target=/c --mount=id=x,type=secret true\n", 2, /type=secret/],
  ["a secret mount after a quoted flag with a space", 'FROM alpine\nRUN --mount=type=cache,target="/a b" --mount=type=secret,id=x true\n', 2, /type=secret/],
  ["a quoted secret mount", 'FROM alpine\nRUN --mount="type=secret,id=x" true\n', 2, /type=secret/],
  ["a secret mount on a continuation line (the instruction's line is named)", "FROM alpine\nRUN \\\n  # a comment inside\n  --mount=type=secret,id=x \\\n  true\n", 2, /type=secret/],
  ["a secret mount under a backtick escape", "# escape=`\nFROM alpine\nRUN `\n --mount=type=secret,id=x true\n", 3, /type=secret/],
  ["an ONBUILD RUN with an ssh mount", "FROM alpine\nONBUILD RUN --mount=type=ssh true\n", 2, /type=ssh/],
  ["CRLF line ends", "FROM alpine\r\nRUN --mount=type=secret,id=x true\r\n", 2, /type=secret/],
];

describe("checkDockerfile", () => {
  it.each(rows)("%s", (_name, text, line, message) => {
    const r = checkDockerfile(text);
    if (line === null) return expect(r).toEqual({ ok: true });
    expect(r).toMatchObject({ ok: false, line });
    expect(r.ok ? "" : r.message).toMatch(message!);
  });

  it("reserves the frontend's own build args", () => {
    expect(["BUILDKIT_CACHE_MOUNT_NS", "BUILDKIT_SYNTAX", "buildkit_inline_cache"].every(reservedBuildArg)).toBe(true);
    expect(["NODE_ENV", "MY_BUILDKIT_X"].some(reservedBuildArg)).toBe(false);
  });
});
