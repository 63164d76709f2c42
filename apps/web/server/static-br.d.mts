import type { IncomingMessage, ServerResponse } from "node:http";
export const MIN_BYTES: number;
export function brotliParams(length: number): Record<number, number>;
export function precompress(nextDir: string, options?: { concurrency?: number }): Promise<{ files: number; raw: number; compressed: number }>;
export function acceptsBrotli(header: string | undefined): boolean;
export function brotliStatic(nextDir: string, headers?: { key: string; value: string }[]): (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
