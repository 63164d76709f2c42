import { LineCounter, isMap, isScalar, parseDocument, stringify, type Document } from "yaml";
import type { z } from "zod";
import { type EnvironmentSpec, environmentSpec } from "./env-spec";
import { LevelrailError } from "./errors";
import { issueMessage, valueAt } from "./zod-issue";

/**
 * Reading a spec (docs/operating/projects-environments-spec.md#config-as-code-export-diff-apply): the text (YAML, or JSON, which is YAML) or an already parsed
 * object, checked by the API's own zod schemas and by the rules that span objects (a name used
 * twice, a reference to nothing, a secret's value written inline). Every problem names its field and,
 * for text, the line and column it is at.
 */

export type SpecPath = (string | number)[];

export interface SpecProblem {
  /** Dotted, like the API's `field`: `spec.services.0.image`. */
  field: string;
  path: SpecPath;
  line: number | null;
  column: number | null;
  message: string;
}

/** Where a path of the document is in its text (1-based), or null (an object given as JSON, or a path the text lacks). */
export type Locate = (path: SpecPath, atKey?: boolean) => { line: number; column: number } | null;

export type SpecReading = { ok: true; spec: EnvironmentSpec; locate: Locate } | { ok: false; problems: SpecProblem[] };

const nowhere: Locate = () => null;

/** `field` and its position as the start of a message: `line 12, column 7: spec.services.0.image`. */
export function where(locate: Locate, path: SpecPath): string {
  const at = locate(path);
  const field = path.map(String).join(".");
  return at ? `line ${at.line}, column ${at.column}: ${field}` : field;
}

function problem(locate: Locate, path: SpecPath, message: string, atKey = false): SpecProblem {
  const at = locate(path, atKey);
  return { field: path.map(String).join("."), path, line: at?.line ?? null, column: at?.column ?? null, message };
}

/** The text's document and a locator over it; a path that is not there points at its nearest ancestor that is. */
function textLocator(doc: Document, lc: LineCounter): Locate {
  return (path, atKey = false) => {
    for (let n = path.length; n >= 0; n--) {
      const prefix = path.slice(0, n);
      // The last segment of an unknown key names a key: point at the key itself.
      const parent = n > 0 ? doc.getIn(prefix.slice(0, -1), true) : undefined;
      const last = prefix[prefix.length - 1];
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
        const node = pair ? ((n === path.length && !atKey && pair.value) || pair.key) : undefined;
        const range = (node as { range?: [number, number, number] } | undefined)?.range;
        if (range) return pos(lc, range[0]);
        continue;
      }
      const node = n === 0 ? doc.contents : doc.getIn(prefix, true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return pos(lc, range[0]);
    }
    return null;
  };
}

function pos(lc: LineCounter, offset: number) {
  const { line, col } = lc.linePos(offset);
  return { line, column: col };
}

/** The YAML text `export` prints: plain scalars, no anchors, lines not folded. */
export function specText(doc: EnvironmentSpec): string {
  return stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
}

/** Reads a spec from its text or a parsed object; never throws. */
export function readSpec(input: unknown): SpecReading {
  let raw: unknown = input;
  let locate = nowhere;
  if (typeof input === "string") {
    const lc = new LineCounter();
    const doc = parseDocument(input, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
    const err = doc.errors[0];
    if (err) {
      const at = lc.linePos(err.pos[0]);
      const message = err.code === "DUPLICATE_KEY" ? "a key used twice in one mapping" : err.message.split("\n")[0]!;
      return { ok: false, problems: [{ field: "spec", path: [], line: at.line, column: at.col, message }] };
    }
    locate = textLocator(doc, lc);
    raw = doc.toJS({ maxAliasCount: 100 });
  }
  const inline = inlineSecrets(raw, locate);
  if (inline.length) return { ok: false, problems: inline };
  const parsed = environmentSpec.safeParse(raw ?? {});
  // An unknown field first: a misspelt key (`targetId` for `target`) also makes its right one missing.
  const issues = parsed.success ? [] : [...parsed.error.issues].sort((x, y) => Number(y.code === "unrecognized_keys") - Number(x.code === "unrecognized_keys"));
  if (!parsed.success) return { ok: false, problems: issues.map((i) => fromIssue(i, raw, locate)) };
  const cross = crossChecks(parsed.data, locate);
  return cross.length ? { ok: false, problems: cross } : { ok: true, spec: parsed.data, locate };
}

/** `readSpec`, or the 400 of its first problem (naming its field, line and column, and how many more there are). */
export function specOrThrow(input: unknown): { spec: EnvironmentSpec; locate: Locate } {
  const r = readSpec(input);
  if (r.ok) return r;
  throw problemError(r.problems);
}

export function problemError(problems: SpecProblem[]): LevelrailError {
  const p = problems[0]!;
  const at = p.line === null ? "" : `line ${p.line}, column ${p.column}: `;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  return new LevelrailError("invalid_input", `${at}${p.field}: ${p.message}${more}`, { field: p.field });
}

function fromIssue(issue: z.core.$ZodIssue, raw: unknown, locate: Locate): SpecProblem {
  const path = issue.path.filter((k): k is string | number => typeof k !== "symbol");
  if (issue.code === "unrecognized_keys") return problem(locate, [...path, issue.keys[0] ?? ""], issueMessage(issue, raw), true);
  return problem(locate, path, issueMessage(issue, raw));
}

const howToSet = (key: string, service: string) =>
  `a secret's value is never written in the file: list its name only (secrets: [${key}]) and give the value with \`levelrail apply --secret ${key}=@env:VAR\` or PUT /api/v1/environments/{envId}/services/${service}/secrets/${key}`;

/** A secret written with its value (a mapping, or `KEY=value`) is refused before anything else, saying how to set it. */
function inlineSecrets(raw: unknown, locate: Locate): SpecProblem[] {
  const services = valueAt(raw, ["spec", "services"]);
  if (!Array.isArray(services)) return [];
  const out: SpecProblem[] = [];
  services.forEach((s: unknown, i) => {
    const secrets = valueAt(s, ["secrets"]);
    const name = String(valueAt(s, ["name"]) ?? "{service}");
    if (secrets !== null && typeof secrets === "object" && !Array.isArray(secrets)) {
      for (const key of Object.keys(secrets)) out.push(problem(locate, ["spec", "services", i, "secrets", key], howToSet(key, name), true));
    } else if (Array.isArray(secrets)) {
      secrets.forEach((item: unknown, j) => {
        if (item !== null && typeof item === "object") {
          const key = Object.keys(item)[0] ?? "KEY";
          out.push(problem(locate, ["spec", "services", i, "secrets", j], howToSet(key, name)));
        } else if (typeof item === "string" && item.includes("=")) {
          out.push(problem(locate, ["spec", "services", i, "secrets", j], howToSet(item.slice(0, item.indexOf("=")), name)));
        }
      });
    }
  });
  return out;
}

/** Rules across objects: each name once (a database and a service share a namespace), every reference to an object of the file. */
function crossChecks(doc: EnvironmentSpec, locate: Locate): SpecProblem[] {
  const out: SpecProblem[] = [];
  const { apps, services, databases } = doc.spec;
  const twice = (list: { name: string }[], kind: "apps" | "services" | "databases", seen: Map<string, string>) =>
    list.forEach((o, i) => {
      const before = seen.get(o.name);
      if (before) out.push(problem(locate, ["spec", kind, i, "name"], `${o.name} is used twice (also ${before})`));
      else seen.set(o.name, `spec.${kind}.${i}`);
    });
  twice(apps, "apps", new Map());
  const workloads = new Map<string, string>();
  twice(services, "services", workloads);
  twice(databases, "databases", workloads);
  const appNames = new Set(apps.map((a) => a.name));
  const dbNames = new Set(databases.map((d) => d.name));
  services.forEach((s, i) => {
    if (!appNames.has(s.app)) out.push(problem(locate, ["spec", "services", i, "app"], `no app named ${s.app} in spec.apps; add - name: ${s.app} there`));
    for (const [key, ref] of Object.entries(s.databaseEnv)) {
      if (!dbNames.has(ref.from)) out.push(problem(locate, ["spec", "services", i, "databaseEnv", key, "from"], `no database named ${ref.from} in spec.databases`));
    }
  });
  return out;
}
