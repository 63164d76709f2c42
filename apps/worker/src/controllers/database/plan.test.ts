import { describe, expect, it } from "vitest";
import { planBackup } from "./backup-plan";
import { BACKUP_TABLES, DATABASE_TABLES, container, desired, observed, planCaseCount } from "./plan.cases";
import { plan } from "./plan";

describe.each(DATABASE_TABLES)("plan: %s", (_, rows) => {
  it.each(rows)("%s", (_situation, d, o, expected) => {
    const before = structuredClone({ d, o });
    expect(plan(d, o)).toMatchObject(expected);
    expect({ d, o }).toStrictEqual(before); // pure: nothing it was given changed
  });
});

describe.each(BACKUP_TABLES)("planBackup: %s", (_, rows) => {
  it.each(rows)("%s", (_situation, d, o, expected) => {
    const before = structuredClone({ d, o });
    expect(planBackup(d, o)).toMatchObject(expected);
    expect({ d, o }).toStrictEqual(before);
  });
});

describe("plan: what it needs observed", () => {
  it("the app networks, once the server runs", () => {
    expect(() => plan(desired(), observed({ servers: [container()], appNetworks: null }))).toThrow(/app networks were not observed/);
  });

  it("counts its situations for the bench: every row of every table", () => {
    const situations = [...DATABASE_TABLES.flatMap(([, r]) => r.map(([s]) => s)), ...BACKUP_TABLES.flatMap(([, r]) => r.map(([s]) => s))];
    expect(planCaseCount()).toBe(situations.length);
    expect(new Set(situations).size).toBe(situations.length); // no row counted twice
  });
});
