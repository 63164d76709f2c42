import { describe, expect, it } from "vitest";
import { readSpec, specOrThrow, specText } from "./env-spec-read";
import { specJsonSchema } from "./env-spec";

const GOOD = `apiVersion: levelrail.dev/v1
kind: Environment
metadata:
  project: shop
  environment: production
spec:
  vars:
    LOG_LEVEL: info
  apps:
    - name: shop
  databases:
    - name: shop-db
      version: "17"
      backupSchedule: { cron: "0 3 * * *", keep: 7, target: nightly }
  services:
    - name: web
      app: shop
      image: registry.example.com/shop:1.4.2
      port: 8080
      databaseEnv:
        DATABASE_URL: { from: shop-db }
      secrets: [API_KEY]
`;

/** Replace one line of GOOD (1-based) with `text` (several lines allowed). */
const withLine = (n: number, text: string) => GOOD.split("\n").map((l, i) => (i === n - 1 ? text : l)).join("\n");

describe("readSpec", () => {
  it("reads a good spec with the API's defaults filled in", () => {
    const r = readSpec(GOOD);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const web = r.spec.spec.services[0]!;
    expect(web).toMatchObject({ strategy: "blue-green", healthPath: "/", storageTarget: null, registryCredential: null, secrets: ["API_KEY"], domains: [] });
    expect(r.spec.spec.databases[0]!.backupSchedule).toEqual({ cron: "0 3 * * *", keep: 7, target: "nightly" });
    expect(r.locate(["spec", "services", 0, "image"])).toEqual({ line: 18, column: 14 });
  });

  it("reads what specText writes back to the same document", () => {
    const r = readSpec(GOOD);
    if (!r.ok) throw new Error("bad");
    const again = readSpec(specText(r.spec));
    expect(again.ok && again.spec).toEqual(r.spec);
  });

  const cases: { name: string; text: string; field: string; line: number; column: number; message: RegExp }[] = [
    { name: "an unknown field, at its key", text: withLine(19, "      port: 8080\n      colour: blue"), field: "spec.services.0.colour", line: 20, column: 7, message: /unknown field colour/ },
    { name: "an unknown top-level field", text: `${GOOD}extra: 1\n`, field: "extra", line: 23, column: 1, message: /unknown field extra/ },
    { name: "a bad value, at the value", text: withLine(19, "      port: 99999"), field: "spec.services.0.port", line: 19, column: 13, message: /1-65535/ },
    { name: "a missing field, at its object", text: withLine(19, ""), field: "spec.services.0.port", line: 16, column: 7, message: /is required/ },
    { name: "a bad env key", text: withLine(8, "    BAD KEY: info"), field: "spec.vars.BAD KEY", line: 8, column: 14, message: /must start with a letter/ },
    { name: "a service name used twice", text: `${GOOD}    - name: web\n      app: shop\n      image: nginx:1\n      port: 80\n`, field: "spec.services.1.name", line: 23, column: 13, message: /web is used twice/ },
    { name: "a database and a service of one name", text: withLine(12, "    - name: web").replace("from: shop-db", "from: web"), field: "spec.databases.0.name", line: 12, column: 13, message: /web is used twice \(also spec\.services\.0\)/ },
    { name: "an app used twice", text: withLine(10, "    - name: shop\n    - name: shop"), field: "spec.apps.1.name", line: 11, column: 13, message: /shop is used twice/ },
    { name: "a service of an app the file lacks", text: withLine(17, "      app: blog"), field: "spec.services.0.app", line: 17, column: 12, message: /no app named blog/ },
    { name: "a database the file lacks", text: withLine(21, "        DATABASE_URL: { from: other-db }"), field: "spec.services.0.databaseEnv.DATABASE_URL.from", line: 21, column: 31, message: /no database named other-db/ },
    { name: "a secret's value as a mapping", text: withLine(22, "      secrets:\n        API_KEY: hunter2"), field: "spec.services.0.secrets.API_KEY", line: 23, column: 9, message: /--secret API_KEY=@env:VAR/ },
    { name: "a secret's value as KEY=value", text: withLine(22, "      secrets: [API_KEY=hunter2]"), field: "spec.services.0.secrets.0", line: 22, column: 17, message: /never written in the file/ },
    { name: "a secret listed twice", text: withLine(22, "      secrets: [API_KEY, API_KEY]"), field: "spec.services.0.secrets", line: 22, column: 16, message: /twice/ },
    { name: "a key used twice in one mapping", text: withLine(19, "      port: 8080\n      port: 8081"), field: "spec", line: 20, column: 7, message: /key used twice/ },
    { name: "broken YAML", text: withLine(19, "      port: [8080"), field: "spec", line: 20, column: 7, message: /./ },
    { name: "a bad cron", text: withLine(14, '      backupSchedule: { cron: "every night", keep: 7, target: nightly }'), field: "spec.databases.0.backupSchedule.cron", line: 14, column: 31, message: /5 fields/ },
    { name: "a target id instead of a name", text: withLine(14, '      backupSchedule: { cron: "0 3 * * *", keep: 7, targetId: "x" }'), field: "spec.databases.0.backupSchedule.targetId", line: 14, column: 53, message: /unknown field targetId/ },
    { name: "the wrong apiVersion", text: withLine(1, "apiVersion: v2"), field: "apiVersion", line: 1, column: 13, message: /levelrail\.dev\/v1/ },
  ];

  it.each(cases)("refuses $name with its line and column", ({ text, field, line, column, message }) => {
    const r = readSpec(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const p = r.problems[0]!;
    expect({ field: p.field, line: p.line, column: p.column }).toEqual({ field, line, column });
    expect(p.message).toMatch(message);
    expect(p.message).not.toContain("hunter2");
  });

  it("throws the API's 400 naming the field, line and column", () => {
    expect(() => specOrThrow(withLine(19, "      port: 0"))).toThrow(/^line 19, column 13: spec\.services\.0\.port: must be 1-65535$/);
  });

  it("reads a document given as JSON (no positions then)", () => {
    const r = readSpec({ apiVersion: "levelrail.dev/v1", kind: "Environment", metadata: { project: "p", environment: "e" }, spec: { apps: [{ name: "a", x: 1 }] } });
    expect(!r.ok && r.problems[0]).toMatchObject({ field: "spec.apps.0.x", line: null, column: null });
  });
});

describe("specJsonSchema", () => {
  it("is a JSON Schema of the document, generated from the zod schemas", () => {
    const s = specJsonSchema() as { $schema: string; properties: Record<string, { properties?: Record<string, unknown> }>; additionalProperties: boolean };
    expect(s.$schema).toMatch(/json-schema\.org/);
    expect(Object.keys(s.properties)).toEqual(["apiVersion", "kind", "metadata", "spec"]);
    expect(s.additionalProperties).toBe(false);
    expect(JSON.stringify(s)).toContain('"registryCredential"');
  });
});
