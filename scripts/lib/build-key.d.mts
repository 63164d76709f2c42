export declare const WEB_INPUTS: string[];
export declare function readByWebBuild(path: string): boolean;
export declare function changedPaths(porcelainZ: string): string[];
export declare function webBuildKey(committed: string, porcelainZ: string, read: (path: string) => string | Buffer | null): string;
