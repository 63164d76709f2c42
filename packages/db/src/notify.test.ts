import { PgDialect } from "drizzle-orm/pg-core";
import type { SQL } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { INGRESS_KEY, NETWORKS_KEY, type ReconcileKey, serviceKey } from "@levelrail/spec/keys";
import { DESIRED_CHANNEL, type Listener, listenDesired, notifyDesired } from "./notify";

const SERVICE_ID = "3f2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d";

describe("notifyDesired", () => {
  it.each<[ReconcileKey, string]>([
    [serviceKey(SERVICE_ID), `service:${SERVICE_ID}`],
    [INGRESS_KEY, "ingress"],
    [NETWORKS_KEY, "networks"],
  ])("sends %j as %s on the desired-state channel", async (key, payload) => {
    const sent: SQL[] = [];
    await notifyDesired({ execute: async (query) => void sent.push(query) }, key);
    expect(sent).toHaveLength(1);
    const { sql, params } = new PgDialect().sqlToQuery(sent[0]!);
    expect(sql).toBe("select pg_notify($1, $2)");
    expect(params).toEqual([DESIRED_CHANNEL, payload]);
  });
});

describe("listenDesired", () => {
  it("hands over parsed keys and ignores payloads that are no reconcile key", async () => {
    let deliver: (payload: string) => void = () => {};
    let unlistened = false;
    const pool: Listener = {
      async listen(channel, onNotify) {
        expect(channel).toBe(DESIRED_CHANNEL);
        deliver = onNotify;
        return {
          async unlisten() {
            unlistened = true;
          },
        };
      },
    };
    const keys: ReconcileKey[] = [];
    const stop = await listenDesired(pool, (k) => keys.push(k));
    for (const payload of [`service:${SERVICE_ID}`, "service:web shop", "networks", "", "ingress", "deploy:x"]) deliver(payload);
    expect(keys).toEqual([serviceKey(SERVICE_ID), NETWORKS_KEY, INGRESS_KEY]);
    await stop();
    expect(unlistened).toBe(true);
  });
});
