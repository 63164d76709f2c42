// The headers every answer of the panel carries: next.config.ts sets them on Next's answers, and
// server/main.mjs on what it answers itself (the precompressed static files).
/** No page of the panel may be framed by another site (clickjacking of Deploy and Delete). */
export const securityHeaders = [
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
];
