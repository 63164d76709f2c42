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
