export declare function isSwarmManager(): Promise<boolean>;
export declare const edgeCaddyHome: (dataDir: string) => string;
export declare function stopSwarmEdge(short: string): Promise<string[]>;
export declare function ensureSwarmEdge(o: { dataDir: string; short: string; httpPort: number; httpsPort: number | null; port: number }): Promise<string>;
