export declare const EXTERNAL: string[];
export declare function upToDate(outfile: string, key: string): boolean;
export declare function bundle(opts: { entry: string; outfile: string }): Promise<{ outfile: string; built: boolean }>;
export declare function removeBundle(outfile: string): void;
export declare const BUNDLES: Record<"worker" | "dataplane" | "cli" | "migrate" | "edge", { entry: string; outfile: string }>;
export declare function nodeArgs(outfile: string): string[];
