export function normalize(address: string | undefined): string;
export function trustList(entries: string[]): (address: string) => boolean;
export function clientIp(peer: string | undefined, forwarded: string | undefined, trusted: (address: string) => boolean): string;
export const CLIENT_IP_HEADER: string;
