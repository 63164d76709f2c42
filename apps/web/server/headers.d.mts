export const securityHeaders: { key: string; value: string }[];
