import { describe, expect, it } from "vitest";
import { type JoinCandidate, type PortCheck, type ProbeOutcome, type SwarmMember, judgeJoin, overlayMtu, planJoinChecks, runJoinPreflight } from "./preflight";

const manager: SwarmMember = { name: "m1", address: "10.0.0.11", role: "manager", mtu: 1500 };
const worker: SwarmMember = { name: "w2", address: "10.0.0.12", role: "worker", mtu: 1500 };
const candidate: JoinCandidate = { name: "w3", address: "10.0.0.13", mtu: 1500 };

const portIds = (checks: ReturnType<typeof planJoinChecks>) => checks.filter((c): c is PortCheck => c.kind === "port").map((c) => c.id);

describe("overlayMtu", () => {
  it.each([
    ["one node", [1500], 1450],
    ["the smallest wins", [1500, 1450, 9000], 1400],
    ["jumbo frames", [9000, 9000], 8950],
    ["unknown MTUs are left out", [null, 1500], 1450],
    ["nothing known", [null], null],
    ["no nodes", [], null],
  ] as const)("%s", (_, mtus, want) => {
    expect(overlayMtu(mtus)).toBe(want);
  });
});

describe("planJoinChecks", () => {
  it("a worker joining one manager: 2377/tcp towards it, gossip and VXLAN both ways, and the MTU", () => {
    expect(portIds(planJoinChecks(candidate, [manager]))).toEqual([
      "port 2377/tcp 10.0.0.13→10.0.0.11",
      "port 7946/tcp 10.0.0.13→10.0.0.11",
      "port 7946/tcp 10.0.0.11→10.0.0.13",
      "port 7946/udp 10.0.0.13→10.0.0.11",
      "port 7946/udp 10.0.0.11→10.0.0.13",
      "port 4789/udp 10.0.0.13→10.0.0.11",
      "port 4789/udp 10.0.0.11→10.0.0.13",
    ]);
  });

  it("2377 only towards managers; every other port with every member", () => {
    const ids = portIds(planJoinChecks(candidate, [manager, worker]));
    expect(ids.filter((id) => id.startsWith("port 2377"))).toEqual(["port 2377/tcp 10.0.0.13→10.0.0.11"]);
    expect(ids).toHaveLength(1 + 6 * 2);
    expect(ids).toContain("port 4789/udp 10.0.0.12→10.0.0.13");
  });

  it("a member at the candidate's own address (a rejoin) is not checked against itself", () => {
    expect(portIds(planJoinChecks(candidate, [{ ...worker, address: candidate.address }]))).toEqual([]);
  });

  it.each([
    ["fits", 1500, [1500, 1500], null, true, 1450, null],
    ["the candidate is the smallest: fine before networks fix their MTU", 1400, [1500], null, false, 1450, "raise it to at least 1500, or lower the networks' MTU to 1350"],
    ["the networks' own MTU is lower than the members'", 1400, [1500], 1350, true, 1350, null],
    ["jumbo members, a 1500 candidate", 1500, [9000], null, false, 8950, "raise it to at least 9000"],
    ["under IPv6's minimum", 1300, [1500], 1200, false, 1200, "under the minimum 1280"],
    ["the candidate's MTU unknown", null, [1500], null, false, 1450, "unknown"],
    ["no member MTU known", 1500, [null], null, true, null, null],
  ] as const)("MTU: %s", (_, cand, mtus, networkMtu, ok, overlay, problem) => {
    const members = mtus.map((mtu, i) => ({ ...manager, address: `10.0.0.${20 + i}`, mtu }));
    const check = planJoinChecks({ ...candidate, mtu: cand }, members, networkMtu).find((c) => c.kind === "mtu");
    expect(check).toMatchObject({ ok, overlayMtu: overlay });
    if (problem) expect(check?.kind === "mtu" && check.problem).toContain(problem);
    else expect(check?.kind === "mtu" && check.problem).toBeNull();
  });
});

describe("judgeJoin", () => {
  const checks = planJoinChecks(candidate, [manager]);
  const all = (o: ProbeOutcome) => new Map(portIds(checks).map((id) => [id, o]));

  it.each([
    ["every probe passes", all({ status: "pass" }), true, [], 0],
    [
      "VXLAN blocked towards the candidate: names port 4789/udp, and how to fix it",
      new Map([...all({ status: "pass" }), ["port 4789/udp 10.0.0.11→10.0.0.13", { status: "fail", detail: "no datagram arrived within 2 s" }]]),
      false,
      ["port 4789/udp"],
      0,
    ],
    [
      "the manager port refused",
      new Map([...all({ status: "pass" }), ["port 2377/tcp 10.0.0.13→10.0.0.11", { status: "fail", detail: "ECONNREFUSED" }]]),
      false,
      ["port 2377/tcp"],
      0,
    ],
    [
      "a probe that was skipped fails",
      new Map([...all({ status: "pass" })].filter(([id]) => !id.startsWith("port 7946/tcp 10.0.0.11"))),
      false,
      ["port 7946/tcp"],
      0,
    ],
    [
      "an unverified probe is listed, not failed",
      new Map([...all({ status: "pass" }), ["port 4789/udp 10.0.0.13→10.0.0.11", { status: "unverified", detail: "the engine holds the port" }]]),
      true,
      [],
      1,
    ],
  ] as const)("%s", (_, outcomes, ok, failedChecks, unverified) => {
    const v = judgeJoin(checks, outcomes as ReadonlyMap<string, ProbeOutcome>);
    expect(v.ok).toBe(ok);
    expect(v.failed.map((f) => f.check)).toEqual(failedChecks);
    expect(v.unverified).toHaveLength(unverified);
  });

  it("a failed port says from where to where and which firewall to open", () => {
    const v = judgeJoin(checks, new Map([...all({ status: "pass" }), ["port 4789/udp 10.0.0.11→10.0.0.13", { status: "fail", detail: "timeout" }]]));
    expect(v.failed[0]).toMatchObject({
      check: "port 4789/udp",
      message: "port 4789/udp from m1 (10.0.0.11) to w3 (10.0.0.13) is not reachable: timeout",
      fix: "allow UDP 4789 from 10.0.0.11 to 10.0.0.13 (overlay network traffic (VXLAN)) in w3's firewall and any between them",
    });
  });

  it("an MTU that does not fit fails as `mtu` with no probe at all", () => {
    const v = judgeJoin(planJoinChecks({ ...candidate, mtu: 1400 }, [manager]), all({ status: "pass" }));
    expect(v.failed.map((f) => f.check)).toEqual(["mtu"]);
  });
});

describe("runJoinPreflight", () => {
  it("probes each port check once, a prober's error failing that check by its message", async () => {
    const seen: string[] = [];
    const v = await runJoinPreflight(candidate, [manager], {
      async probe(c) {
        seen.push(c.id);
        if (c.port === 7946 && c.proto === "udp" && c.to.address === candidate.address) throw new Error("netns gone");
        return { status: "pass" };
      },
    });
    expect(seen).toHaveLength(7);
    expect(v.failed).toEqual([expect.objectContaining({ check: "port 7946/udp", message: expect.stringContaining("netns gone") })]);
  });
});
