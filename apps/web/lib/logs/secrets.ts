import type { LogContainer, LogReader } from "@levelrail/docker/logs";
import { Labels } from "@levelrail/spec/naming";

/**
 * The values to hide in one container's lines: the service's current secrets, and the container's
 * own values under its secret keys (the keys its label names, as its release was deployed, and
 * today's): a rotated or removed secret stays hidden in the logs of a container that still has it.
 */
export async function containerSecrets(reader: Pick<LogReader, "env">, c: LogContainer, current: readonly { key: string; value: string }[]): Promise<string[]> {
  const keys = new Set([...current.map((e) => e.key), ...(c.labels[Labels.secretKeys] ?? "").split(",").filter(Boolean)]);
  const env = await reader.env(c.id);
  const own = [...keys].flatMap((k) => {
    const v = env[k];
    return v === undefined ? [] : [v];
  });
  return [...new Set([...current.map((e) => e.value), ...own])];
}
