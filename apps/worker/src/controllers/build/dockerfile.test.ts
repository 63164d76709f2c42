import { describe, expect, it } from "vitest";
import { reservedBuildArg } from "@levelrail/spec/git";
import { checkDockerfile, imageUses } from "./dockerfile";

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
  // ADD/COPY that would make the engine's BuildKit fetch from the network (its host's loopback and private addresses too).
  ["ADD of local files, a heredoc and an archive", "FROM alpine\nADD --chown=1:1 app.tar.gz ./src/ /app/\nADD <<EOF /etc/motd\nhello\nEOF\n", null],
  ["COPY --from an image pinned by digest (a flag, not a source)", "FROM alpine\nCOPY --from=alpine@sha256:0123abcd /bin/sh /sh\nCOPY $APP/package.json ./\n", null],
  ["ADD of an http URL", "FROM scratch\nADD http://127.0.0.1:8080/x /x\n", 2, /^ADD of a URL is not allowed: download in a RUN step or vendor the file$/],
  ["ADD of an https URL with --checksum", "FROM scratch\n\nADD --checksum=sha256:24454f830cdb571e2c4ad15481119c43b3cafd48dd869a9b2945d1036d1dc68d https://169.254.169.254/latest/meta-data /x\n", 3, /ADD of a URL/],
  ["ADD of a URL among local sources", "FROM scratch\nADD a.txt HTTPS://example.com/b /dst/\n", 2, /ADD of a URL/],
  ["ADD of a URL in the JSON form", 'FROM scratch\nADD ["http://10.0.0.1/x", "/x"]\n', 2, /ADD of a URL/],
  ["ADD of a URL spelled with a JSON escape", 'FROM scratch\nADD ["\\u0068ttp://127.0.0.1/x", "/x"]\n', 2, /ADD of a URL/],
  ["ADD of a quoted URL", 'FROM scratch\nADD "http://127.0.0.1/x" /x\n', 2, /ADD of a URL/],
  ["ADD of a URL split by quotes and an escape", "FROM scratch\nADD h\"tt\"p\\://127.0.0.1/x /x\n", 2, /ADD of a URL/],
  ["ADD of a URL on a continuation line under a backtick escape", "# escape=`\nFROM scratch\nADD `\n  http://127.0.0.1/x `\n  /x\n", 3, /ADD of a URL/],
  ["ADD of a quoted word hiding a URL (BuildKit's parser splits on whitespace)", "FROM scratch\nADD \"x http://127.0.0.1/ y\" /x\n", 2, /ADD of a URL/],
  ["ADD of a git repository over https", "FROM scratch\nADD --keep-git-dir=true https://github.com/moby/buildkit.git#v0.10.1 /buildkit\n", 2, /ADD of a URL/],
  ["ADD of a git repository in scp form", "FROM scratch\nADD git@github.com:moby/buildkit.git /buildkit\n", 2, /ADD of a URL/],
  ["ADD of a git repository in scp form with another user", "FROM scratch\nADD deploy@10.0.0.5:repo.git /src\n", 2, /ADD of a URL/],
  ["ADD of a git:// and an ssh:// repository", "FROM scratch\nADD git://127.0.0.1/r.git ssh://git@127.0.0.1/r.git /src\n", 2, /ADD of a URL/],
  ["ADD with a variable in its source (a build arg could make it a URL)", "FROM scratch\nARG U=http://127.0.0.1/x\nADD $U /x\n", 3, /ADD with a variable in its source is not allowed/],
  ["ADD with a braced variable in the JSON form", 'FROM scratch\nADD ["${U}", "/x"]\n', 2, /ADD with a variable/],
  ["an ONBUILD ADD of a URL", "FROM alpine\nONBUILD ADD http://127.0.0.1/x /x\n", 2, /ADD of a URL/],
  ["an onbuild add of a git repository, lower case", "FROM alpine\nonbuild add git@127.0.0.1:r.git /r\n", 2, /ADD of a URL/],
  ["COPY of a URL (BuildKit refuses it too)", "FROM alpine\nCOPY http://127.0.0.1/x /x\n", 2, /^COPY of a URL is not allowed/],
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

describe("imageUses: what a build reads from the engine's image store", () => {
  const P = { TARGETARCH: "amd64", TARGETPLATFORM: "linux/amd64", BUILDPLATFORM: "linux/amd64" };
  const refs = (text: string, args: Record<string, string> = {}) => {
    const r = imageUses(text, args, P);
    if (!r.ok) throw new Error(`refused: line ${r.line}: ${r.message}`);
    return r.images.map((i) => `${i.line} ${i.ref}`);
  };

  it("names every FROM, COPY --from and RUN --mount=from that is no stage, scratch left out", () => {
    const text = [
      "FROM reg.example/base:1 AS build", // 1
      "COPY --from=reg.example/tools:2 /bin/x /x", // 2
      "RUN --mount=type=bind,from=reg.example/cache:3,target=/c make", // 3
      "FROM scratch", // 4
      "COPY --from=build /out /out", // 5
      "COPY --from=BUILD /out /out2", // 6 (stage names ignore case)
      "COPY --from=0 /out /out3", // 7 (by index)
      "FROM Build AS final", // 8 (a stage)
      "RUN --mount=from=build,target=/b true", // 9
    ].join("\n");
    expect(refs(text)).toEqual(["1 reg.example/base:1", "2 reg.example/tools:2", "3 reg.example/cache:3"]);
  });

  it("substitutes global ARGs with the build's values, their defaults, and the platform's", () => {
    const text = 'ARG BASE=reg.example/base\nARG TAG="1.0"\nARG UNSET\nFROM ${BASE}:${TAG}\nFROM $BASE-$TARGETARCH${UNSET:-:x}\nFROM ${NONE:-reg.example/fallback}:${TAG:+t}\n';
    expect(refs(text)).toEqual(["4 reg.example/base:1.0", "5 reg.example/base-amd64:x", "6 reg.example/fallback:t"]);
    // A build arg replaces a declared ARG's default; an undeclared one reaches no FROM.
    expect(refs(text, { BASE: "reg.example/other", NONE: "reg.example/ignored" })).toEqual(["4 reg.example/other:1.0", "5 reg.example/other-amd64:x", "6 reg.example/fallback:t"]);
  });

  it("an ARG after the first FROM reaches no later FROM; escapes and single quotes are literal", () => {
    expect(refs("FROM a\nARG X=b\nFROM c${X}\n")).toEqual(["1 a", "3 c"]);
    expect(refs("ARG X=z\nFROM 'reg.example/a'\nFROM reg.example/\\$X\n")).toEqual(["2 reg.example/a", "3 reg.example/$X"]);
  });

  it("a stage named only later (or by its own FROM) is checked as an image too", () => {
    expect(refs("FROM alpine AS alpine\nFROM later\nFROM x AS later\n")).toEqual(["1 alpine", "2 later", "3 x"]);
  });

  it.each([
    ["a variable in COPY --from", "FROM a AS s\nARG X=s\nCOPY --from=$X /a /a\n", 3, /COPY --from=\$X: a variable here cannot be checked/],
    ["a variable in a mount's from", "FROM a\nRUN --mount=from=${X},target=/x true\n", 2, /RUN --mount=from=\$\{X\}/],
    ["a substitution form it cannot follow", "ARG X=a\nFROM ${X%%b}\n", 2, /cannot be checked before the build/],
    ["a FROM that is empty once substituted", "FROM ${NOTHING}\n", 1, /names no image/],
  ])("refuses %s, naming its line", (_n, text, line, message) => {
    const r = imageUses(text, {}, P);
    expect(r).toMatchObject({ ok: false, line });
    expect(r.ok ? "" : r.message).toMatch(message);
  });
});
