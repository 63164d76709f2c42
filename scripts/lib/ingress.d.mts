import type { NodeAgentsOptions } from "./edge.mjs";
export declare function nodeAgentsFromEnv(env?: Record<string, string | undefined>): NodeAgentsOptions | null;
export declare function ensureIngress(o: { dataDir: string; short: string; caddyAdmin: string; meshPort: number | string; env?: Record<string, string | undefined> }): Promise<"edge" | "host">;
