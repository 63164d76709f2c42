export declare const DAEMON_JSON: string;
export declare function enableLiveRestore(file?: string): "created" | "added" | "already" | "kept-off" | "invalid";
