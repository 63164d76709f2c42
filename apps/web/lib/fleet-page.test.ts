import { describe, expect, it } from "vitest";
import { groupByApp, pageRange } from "./fleet-page";

const app = (name: string, services: number) => ({ id: `id-${name}`, name, services });
const svc = (name: string, appName: string) => ({ name, app: appName });
const unknown = (name: string) => ({ id: name, name, services: 0 });

describe("groupByApp", () => {
  it("orders cards and each card's services by name, naturally", () => {
    const groups = groupByApp(
      [svc("s100", "shop2"), svc("b", "blog"), svc("s12", "shop2"), svc("a", "shop10"), svc("s2", "shop2")],
      [app("blog", 1), app("shop10", 1), app("shop2", 3)],
      false,
      unknown,
    );
    expect(groups.map((g) => [g.app.name, g.services.map((s) => s.name)])).toEqual([
      ["blog", ["b"]],
      ["shop2", ["s2", "s12", "s100"]],
      ["shop10", ["a"]],
    ]);
  });

  it("shows apps without services first, on the first page only", () => {
    const apps = [app("blog", 1), app("empty", 0)];
    expect(groupByApp([svc("b", "blog")], apps, true, unknown).map((g) => g.app.name)).toEqual(["empty", "blog"]);
    expect(groupByApp([svc("b", "a-app")], [app("a-app", 1), app("z-empty", 0)], true, unknown).map((g) => g.app.name)).toEqual(["z-empty", "a-app"]);
    expect(groupByApp([svc("b", "blog")], apps, false, unknown).map((g) => g.app.name)).toEqual(["blog"]);
  });

  it("gives an app the apps list does not know yet a card of its own name", () => {
    expect(groupByApp([svc("w", "new")], [], false, unknown)).toEqual([{ app: { id: "new", name: "new", services: 0 }, services: [svc("w", "new")] }]);
  });
});

describe("pageRange", () => {
  it("counts from the newest service", () => {
    expect(pageRange(0, 50, 50, 1000)).toBe("1–50 of 1,000");
    expect(pageRange(19, 50, 50, 1000)).toBe("951–1,000 of 1,000");
    expect(pageRange(0, 50, 0, 0)).toBe("0 of 0");
  });
});
