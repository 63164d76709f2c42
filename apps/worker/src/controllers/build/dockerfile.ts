/**
 * What a tenant's Dockerfile may ask of the shared engine, checked before it is sent. Every build of
 * every organization runs on one BuildKit, so:
 *
 * - the Dockerfile is read by the engine's own Dockerfile frontend, which prefixes every cache
 *   mount's id with the service's namespace (`BUILDKIT_CACHE_MOUNT_NS`, `buildCacheNamespace`);
 *   a `# syntax=` directive would hand the build to a frontend image of the Dockerfile's choosing,
 *   which may ignore that namespace (and emit any mount), so it is refused;
 * - `RUN --mount=type=secret|ssh` ask the build's session for secrets or an SSH agent, which the
 *   product never provides; BuildKit keeps a secret's content out of the layer's cache key, so a
 *   step like that would also be a cached layer another tenant's identical step could reuse. Refused,
 *   naming the line: values reach a build as build args (`buildArgs`), which are in the cache key.
 * - `ADD <url>` and `ADD <git repository>` make BuildKit itself fetch, from the engine's host: its
 *   loopback and private addresses and metadata endpoints are in reach, and redirects are followed,
 *   past the address policy every other outbound request of the product passes. Refused, naming the
 *   line, in the Dockerfile and in its `ONBUILD` triggers: any source of the form `scheme://…` or
 *   `user@host:…` (git's scp form), whatever the flags (`--checksum`, `--keep-git-dir`), quotes or
 *   escapes; an `ADD` source holding a variable (`ADD $URL /x`: a build arg or an `ENV` could make it
 *   a URL) is refused too. `COPY` never fetches, but the same forms are refused there as well. What
 *   this cannot see (an `ONBUILD ADD` inside a base image, a `RUN` step reaching the host through
 *   the bridge) is in docs/security.md.
 *
 * A conservative reading: any comment line that looks like a `syntax` directive is refused, wherever
 * it stands (BuildKit's own directive detection is looser than its parser's).
 */

export type DockerfileCheck = { ok: true } | { ok: false; line: number; message: string };

const SYNTAX = /^\s*#\s*syntax\s*=/i;
const ESCAPE = /^\s*#\s*escape\s*=\s*(\S)\s*$/i;
const DIRECTIVE = /^\s*#\s*[a-z][a-z0-9]*\s*=/i;

/** The Dockerfile's instructions, continuation lines joined, each with the line it starts on. */
function instructions(lines: string[], escape: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let current: { line: number; text: string } | null = null;
  lines.forEach((raw, i) => {
    const trimmed = raw.trim();
    // Comments and blank lines are dropped, inside a continuation too (as BuildKit's parser does).
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const continues = trimmed.endsWith(escape);
    const body = continues ? trimmed.slice(0, -1) : trimmed;
    if (current) current.text += ` ${body}`;
    else current = { line: i + 1, text: body };
    if (!continues) {
      out.push(current);
      current = null;
    }
  });
  if (current) out.push(current);
  return out;
}

/**
 * The `--flag` words a RUN starts with (`RUN --mount=type=cache,target=/x --network=none cmd`),
 * split on whitespace outside quotes, as BuildKit's flag extraction does.
 */
function leadingFlags(args: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | null = null;
  for (const ch of args) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (/\s/.test(ch)) {
      if (word) {
        if (!word.startsWith("--")) return words;
        words.push(word);
      }
      word = "";
    } else word += ch;
  }
  if (word.startsWith("--")) words.push(word);
  return words;
}

/** The `type` of a `--mount=` value (csv `key=value` pairs, `bind` when absent), lower-cased. */
function mountType(value: string): string {
  for (const field of value.split(",")) {
    const [k, ...v] = field.split("=");
    if (k?.trim().toLowerCase() === "type") return v.join("=").trim().toLowerCase();
  }
  return "bind";
}

/** The Dockerfile's lines and its escape character (the `# escape=` directive's, else a backslash). */
function split(text: string): { lines: string[]; escape: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  let escape = "\\";
  for (const raw of lines) {
    const esc = ESCAPE.exec(raw);
    if (esc?.[1]) escape = esc[1];
    else if (!DIRECTIVE.test(raw)) break;
  }
  return { lines, escape };
}

/** `scheme://…` (http, https, git, ssh, any other) or git's scp form `user@host:path`. */
const REMOTE = /^(?:[a-z][a-z0-9+.-]*:\/\/|[^\s/@:]+@[^\s/:]+:)/i;

/**
 * Why an `ADD`/`COPY` (or an `ONBUILD` one) would make the engine fetch from the network, or null.
 * Conservative: the arguments are read both as BuildKit's JSON form and split on whitespace (as its
 * parser splits them, quotes or not), every word but the destination and the `--` flags is a source,
 * and quotes and escape characters are dropped before looking (BuildKit's lexer removes them).
 */
function remoteSource(text: string, escape: string): string | null {
  const m = /^(?:onbuild\s+)?(add|copy)\s+([\s\S]*)$/i.exec(text);
  if (!m) return null;
  const keyword = m[1]!.toUpperCase();
  const args = m[2]!.trim();
  const readings: string[][] = [args.split(/\s+/).filter(Boolean)];
  const json = /^(?:--\S+\s+)*(\[[\s\S]*)$/.exec(args)?.[1];
  if (json) {
    try {
      const parsed: unknown = JSON.parse(json);
      if (Array.isArray(parsed)) readings.push(parsed.map(String));
    } catch {
      // Not the JSON form: the whitespace reading stands.
    }
  }
  for (const words of readings) {
    for (const word of words.slice(0, -1)) {
      // A flag (`--checksum=…`, `--from=image@sha256:…`) names no source.
      if (word.startsWith("--")) continue;
      const bare = word
        .split("")
        .filter((ch) => ch !== '"' && ch !== "'" && ch !== escape && ch !== "\\")
        .join("")
        .replace(/^\[+/, "");
      if (REMOTE.test(bare)) return `${keyword} of a URL is not allowed: download in a RUN step or vendor the file`;
      if (keyword === "ADD" && word.includes("$")) {
        return "ADD with a variable in its source is not allowed (it could name a URL, which is not allowed): name the file itself, or use COPY";
      }
    }
  }
  return null;
}

export function checkDockerfile(text: string): DockerfileCheck {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  let escape = "\\";
  let header = true;
  for (const [i, raw] of lines.entries()) {
    if (SYNTAX.test(raw)) {
      return {
        ok: false,
        line: i + 1,
        message: "a syntax directive picks another Dockerfile frontend; builds here use the engine's own (remove the line)",
      };
    }
    if (header) {
      const esc = ESCAPE.exec(raw);
      if (esc?.[1]) escape = esc[1];
      else if (!DIRECTIVE.test(raw)) header = false;
    }
  }
  for (const ins of instructions(lines, escape)) {
    const fetch = remoteSource(ins.text, escape);
    if (fetch) return { ok: false, line: ins.line, message: fetch };
    const m = /^(?:onbuild\s+)?run\s+(.*)$/is.exec(ins.text);
    if (!m?.[1]) continue;
    for (const flag of leadingFlags(m[1])) {
      const f = /^--mount=(.*)$/is.exec(flag);
      if (!f) continue;
      const type = mountType(f[1] ?? "");
      if (type === "secret" || type === "ssh") {
        return {
          ok: false,
          line: ins.line,
          message: `RUN --mount=type=${type}: builds get no ${type === "ssh" ? "SSH agent" : "secrets"}; pass values as build args (the source's buildArgs) instead`,
        };
      }
    }
  }
  return { ok: true };
}

/** An image a Dockerfile starts from or copies from, with the line of its instruction. */
export interface ImageUse {
  line: number;
  ref: string;
}

export type ImageUses = { ok: true; images: ImageUse[] } | { ok: false; line: number; message: string };

/** Arguments BuildKit defines for every `FROM` (the target is the engine's own platform here). */
export function platformArgs(arch: string = process.arch): Record<string, string> {
  const goArch = ({ x64: "amd64", arm64: "arm64", arm: "arm", ia32: "386", ppc64: "ppc64le", s390x: "s390x", riscv64: "riscv64" } as Record<string, string>)[arch] ?? arch;
  const platform = `linux/${goArch}`;
  return { BUILDPLATFORM: platform, BUILDOS: "linux", BUILDARCH: goArch, BUILDVARIANT: "", TARGETPLATFORM: platform, TARGETOS: "linux", TARGETARCH: goArch, TARGETVARIANT: "" };
}

class Unexpandable extends Error {}

/**
 * A word as BuildKit's shell lexer expands it: quotes removed (nothing expanded inside single ones),
 * the escape character taken literally before the next one, `$NAME`, `${NAME}`, `${NAME:-word}`,
 * `${NAME-word}`, `${NAME:+word}`, `${NAME+word}`; an unset name is empty. Any other form throws
 * `Unexpandable` (it cannot be told here which image it names).
 */
export function expandWord(word: string, vars: Readonly<Record<string, string>>, escape = "\\"): string {
  let out = "";
  let i = 0;
  const variable = (): string => {
    // At a `$`.
    const next = word[i + 1];
    if (next === "{") {
      let depth = 0;
      let j = i + 1;
      for (; j < word.length; j++) {
        if (word[j] === "{") depth++;
        else if (word[j] === "}" && --depth === 0) break;
      }
      if (j >= word.length) throw new Unexpandable("an unclosed ${");
      const body = word.slice(i + 2, j);
      i = j + 1;
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([\s\S]*))?$/.exec(body);
      if (!m) throw new Unexpandable(`\${${body}}`);
      const [, name, op, rest] = m;
      const set = Object.hasOwn(vars, name!);
      const value = set ? vars[name!]! : "";
      if (!op) return value;
      const alt = () => expandWord(rest ?? "", vars, escape);
      if (op === ":-") return value !== "" ? value : alt();
      if (op === "-") return set ? value : alt();
      if (op === ":+") return value !== "" ? alt() : "";
      return set ? alt() : "";
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word.slice(i + 1));
    if (!m) {
      i++;
      return "$";
    }
    i += 1 + m[0].length;
    return Object.hasOwn(vars, m[0]) ? vars[m[0]]! : "";
  };
  while (i < word.length) {
    const ch = word[i]!;
    if (ch === escape) {
      out += word[i + 1] ?? "";
      i += 2;
    } else if (ch === "'") {
      const end = word.indexOf("'", i + 1);
      if (end < 0) throw new Unexpandable("an unclosed quote");
      out += word.slice(i + 1, end);
      i = end + 1;
    } else if (ch === '"') {
      i++;
      for (;;) {
        if (i >= word.length) throw new Unexpandable("an unclosed quote");
        const c = word[i]!;
        if (c === '"') {
          i++;
          break;
        }
        if (c === escape && ["$", '"', escape].includes(word[i + 1] ?? "")) {
          out += word[i + 1];
          i += 2;
        } else if (c === "$") out += variable();
        else {
          out += c;
          i++;
        }
      }
    } else if (ch === "$") out += variable();
    else {
      out += ch;
      i++;
    }
  }
  return out;
}

/** Whitespace-separated words, quotes kept inside a word (as BuildKit splits an instruction's arguments). */
function words(args: string): string[] {
  const out: string[] = [];
  let word = "";
  let quote: string | null = null;
  for (const ch of args) {
    if (quote) {
      if (ch === quote) quote = null;
      word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word += ch;
    } else if (/\s/.test(ch)) {
      if (word) out.push(word);
      word = "";
    } else word += ch;
  }
  if (word) out.push(word);
  return out;
}

/** `name=value` pairs of an `ARG` (a name alone: no default). */
function argPairs(args: string): { name: string; value: string | null }[] {
  return words(args).map((w) => {
    const eq = w.indexOf("=");
    return eq < 0 ? { name: w, value: null } : { name: w.slice(0, eq), value: w.slice(eq + 1) };
  });
}

/** The value of a `--from=` source (COPY's flag, or a mount's `from` field), lower-cased for the stage look-up. */
function mountFrom(value: string): string | null {
  for (const field of value.split(",")) {
    const [k, ...v] = field.split("=");
    if (k?.trim().toLowerCase() === "from") return v.join("=").trim();
  }
  return null;
}

/**
 * Every image the Dockerfile's build may read from the engine: each `FROM`, `COPY --from=` and
 * `RUN --mount=…,from=` that names no stage of the file (by name, in any case, or by index) and is not
 * `scratch`, its build args substituted as BuildKit does (a `FROM` sees the ARGs declared before the
 * first `FROM`, given the build's values, and the platform ARGs). A `--from` with a variable (which
 * the engine's frontend does not expand the same way everywhere) or a form of substitution that
 * cannot be followed is refused, naming its line: what a build starts from must be decided before it runs.
 */
export function imageUses(text: string, buildArgs: Readonly<Record<string, string>>, platform: Readonly<Record<string, string>> = platformArgs()): ImageUses {
  const { lines, escape } = split(text);
  const all = instructions(lines, escape).map((ins) => {
    const m = /^(\S+)\s*([\s\S]*)$/.exec(ins.text);
    return { line: ins.line, keyword: (m?.[1] ?? "").toLowerCase(), args: m?.[2] ?? "" };
  });
  // Stages declared so far: a name (any case) or an index of one of them is that stage; a name only
  // declared later (or by the FROM itself) is also checked as an image, whichever the frontend picks.
  const stages = new Set<string>();
  let count = 0;
  const isStage = (name: string) => stages.has(name.toLowerCase()) || (/^\d+$/.test(name) && Number(name) < count);
  const vars: Record<string, string> = { ...platform };
  const images: ImageUse[] = [];
  let seenFrom = false;
  const refuse = (line: number, message: string): ImageUses => ({ ok: false, line, message });
  for (const ins of all) {
    const keyword = ins.keyword === "onbuild" ? (/^(\S+)/.exec(ins.args)?.[1] ?? "").toLowerCase() : ins.keyword;
    const args = ins.keyword === "onbuild" ? ins.args.replace(/^\S+\s*/, "") : ins.args;
    try {
      if (keyword === "arg" && !seenFrom && ins.keyword === "arg") {
        for (const { name, value } of argPairs(args)) {
          if (Object.hasOwn(buildArgs, name)) vars[name] = buildArgs[name]!;
          else if (value !== null) vars[name] = expandWord(value, vars, escape);
          else if (!Object.hasOwn(platform, name)) delete vars[name];
        }
      } else if (keyword === "from" && ins.keyword === "from") {
        seenFrom = true;
        const name = words(args).find((x) => !x.startsWith("--"));
        if (!name) return refuse(ins.line, "FROM names no image");
        const ref = expandWord(name, vars, escape);
        if (ref === "") return refuse(ins.line, `FROM ${name} names no image once its build args are substituted`);
        if (ref.toLowerCase() !== "scratch" && !isStage(ref)) images.push({ line: ins.line, ref });
        const w = words(args).filter((x) => !x.startsWith("--"));
        if (w.length >= 3 && w[1]!.toLowerCase() === "as") stages.add(w[2]!.toLowerCase());
        count++;
      } else if (keyword === "copy" || keyword === "run" || keyword === "add") {
        for (const flag of leadingFlags(args)) {
          const copyFrom = /^--from=([\s\S]*)$/i.exec(flag);
          const mount = /^--mount=([\s\S]*)$/i.exec(flag);
          const from = copyFrom ? copyFrom[1]! : mount ? mountFrom(mount[1]!) : null;
          if (from === null) continue;
          const what = copyFrom ? `${keyword.toUpperCase()} --from` : "RUN --mount=from";
          if (from.includes("$")) return refuse(ins.line, `${what}=${from}: a variable here cannot be checked before the build; name the stage or the image itself`);
          if (from === "") return refuse(ins.line, `${what}= names nothing`);
          if (!isStage(from)) images.push({ line: ins.line, ref: from });
        }
      }
    } catch (err) {
      if (!(err instanceof Unexpandable)) throw err;
      return refuse(ins.line, `${err.message}: this substitution cannot be checked before the build; use $NAME, \${NAME} or \${NAME:-default}`);
    }
  }
  return { ok: true, images };
}
