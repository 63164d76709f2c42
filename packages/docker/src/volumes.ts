import type Docker from "dockerode";
import { statusOf } from "./engine-errors";
import type { Runtime } from "./index";

/** A named volume as the engine describes it. */
export interface VolumeInfo {
  name: string;
  labels: Record<string, string>;
}

/** The volume calls of the Runtime, and joining a running container to a network. */
export type VolumeCalls = Pick<Runtime, "createVolume" | "inspectVolume" | "listVolumes" | "removeVolume" | "connectNetwork">;

const toVolume = (v: { Name: string; Labels?: Record<string, string> | null }): VolumeInfo => ({ name: v.Name, labels: v.Labels ?? {} });

/** `api` answers request/response calls under a deadline. */
export function volumeCalls(api: Docker): VolumeCalls {
  const inspectVolume = async (name: string): Promise<VolumeInfo | null> => {
    try {
      return toVolume(await api.getVolume(name).inspect());
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  };
  return {
    async createVolume(name, labels) {
      // The engine answers a name it has already with that volume, whoever made it: its labels tell.
      const v = await api.createVolume({ Name: name, Labels: labels });
      return toVolume(await v.inspect());
    },
    inspectVolume,
    async listVolumes(labelFilters) {
      const { Volumes } = await api.listVolumes(labelFilters.length ? { filters: { label: labelFilters } } : {});
      return (Volumes ?? []).map(toVolume);
    },
    async removeVolume(name) {
      try {
        await api.getVolume(name).remove();
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    },
    async connectNetwork(network, containerId, aliases) {
      try {
        await api.getNetwork(network).connect({ Container: containerId, EndpointConfig: { Aliases: aliases } });
      } catch (err) {
        // Already connected: the engine refuses (403 or 409, by version); anything else stands.
        const info = await api.getContainer(containerId).inspect().catch(() => null);
        const joined = Object.entries(info?.NetworkSettings.Networks ?? {}).some(([name, n]) => name === network || n.NetworkID === network);
        if (!joined) throw err;
      }
    },
  };
}
