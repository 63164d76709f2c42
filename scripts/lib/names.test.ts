import { describe, expect, it } from "vitest";
import { controlNetworkName, edgeFeedHost, nodeAgentName } from "@levelrail/spec/dataplane";
import * as launcher from "./node-agent.mjs";

// The launcher (plain JavaScript, run before anything is built) names what the worker, the data
// plane and doctor look for by the spec's names: they must be the same.
describe("the launcher's names of the swarm's control parts", () => {
  it("are the spec's", () => {
    for (const short of ["lr", "levelrail", "lr-2"]) {
      expect(launcher.nodeAgentName(short)).toBe(nodeAgentName(short));
      expect(launcher.controlNetworkName(short)).toBe(controlNetworkName(short));
      expect(launcher.edgeFeedHost(short)).toBe(edgeFeedHost(short));
    }
  });
});
