import { describe, expect, it } from "vitest";
import { releaseKindText } from "./format";
import { removalText } from "./removal-text";
import { keys } from "./keys";
import { appApi, appHref, envApi, environmentHref, serviceApi, serviceHref } from "./paths";

const staging = { environmentId: "env-staging", name: "web" };
const production = { environmentId: "env-production", name: "web" };

describe("paths", () => {
  it("puts a service and an app under their environment, in the API and in the UI", () => {
    expect(serviceApi(staging)).toBe("/environments/env-staging/services/web");
    expect(serviceApi(staging, "/secrets/API_KEY")).toBe("/environments/env-staging/services/web/secrets/API_KEY");
    expect(appApi({ environmentId: "e1", name: "shop" }, "/hook-runs")).toBe("/environments/e1/apps/shop/hook-runs");
    expect(envApi("e1", "/apps")).toBe("/environments/e1/apps");
    expect(serviceHref(staging)).toBe("/environments/env-staging/services/web");
    expect(appHref({ environmentId: "e1", name: "shop" })).toBe("/environments/e1/apps/shop");
    expect(environmentHref("e1")).toBe("/environments/e1");
  });

  it("encodes what it is given", () => {
    expect(serviceHref({ environmentId: "a/b", name: "x y" })).toBe("/environments/a%2Fb/services/x%20y");
  });
});

describe("keys", () => {
  it("keeps two same-named services of two environments apart, under the prefix of every service", () => {
    expect(keys.service(staging)).not.toEqual(keys.service(production));
    expect(keys.status(staging)).not.toEqual(keys.status(production));
    for (const k of [keys.status(staging), keys.deploys(staging), keys.secrets(staging), keys.serviceHookRuns(staging)]) {
      expect(k.slice(0, 3)).toEqual(keys.service(staging));
      expect(k[0]).toBe(keys.allServices()[0]);
    }
  });

  it("scopes the lists by environment under the prefixes mutations invalidate", () => {
    expect(keys.apps("e1")).not.toEqual(keys.apps("e2"));
    expect(keys.apps("e1")[0]).toBe(keys.allApps()[0]);
    expect(keys.servicesPage("e1", "")[0]).toBe(keys.services()[0]);
    expect(keys.environmentServices("e1")[0]).toBe(keys.services()[0]);
    expect(keys.environments("p1")[0]).toBe(keys.projects()[0]);
  });
});

describe("releaseKindText", () => {
  it("says where a promote came from", () => {
    expect(releaseKindText({ kind: "promote", promotedFrom: { environmentId: "s", environment: "staging", releaseId: "r" } })).toBe("promoted from staging");
    expect(releaseKindText({ kind: "deploy", promotedFrom: null })).toBe("deploy");
  });
});

describe("removalText", () => {
  it("names every app and service deleting an environment removes", () => {
    expect(removalText("staging", ["shop"], ["web", "worker", "cron"])).toBe(
      "Deleting staging removes app shop; services web, worker and cron with their containers and secrets; the environment's env vars. This cannot be undone.",
    );
    expect(removalText("empty", [], [])).toBe("Deleting empty removes the environment's env vars. This cannot be undone.");
  });

  it("says whether the databases' data goes too", () => {
    expect(removalText("staging", [], [], ["shop-db"])).toBe(
      "Deleting staging removes database shop-db with its container (its data volume is kept); the environment's env vars. This cannot be undone.",
    );
    expect(removalText("staging", [], [], ["shop-db", "reports"], true)).toBe(
      "Deleting staging removes databases shop-db and reports with their containers and their data; the environment's env vars. This cannot be undone.",
    );
  });
});
