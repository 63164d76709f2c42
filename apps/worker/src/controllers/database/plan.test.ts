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
    const rows = [...DATABASE_TABLES, ...BACKUP_TABLES].flatMap(([, r]) => r);
    expect(planCaseCount()).toBe(rows.length);
    expect(new Set(rows.map(([situation]) => situation)).size).toBe(rows.length); // no row counted twice
  });
});
