/** Kubernetes' convention: `:latest` or no tag is pulled on every Deploy; any other tag or a digest only when missing. */
export type PullPolicy = "always" | "if-not-present";

export function pullPolicy(ref: string): PullPolicy {
  if (ref.includes("@")) return "if-not-present";
  const lastSegment = ref.slice(ref.lastIndexOf("/") + 1);
  const colon = lastSegment.lastIndexOf(":");
  if (colon < 0) return "always";
  return lastSegment.slice(colon + 1) === "latest" ? "always" : "if-not-present";
}
