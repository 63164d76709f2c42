import type { NextConfig } from "next";

const config: NextConfig = {
  // The workspace packages export TypeScript source.
  transpilePackages: [
    "@levelrail/auth",
    "@levelrail/config",
    "@levelrail/db",
    "@levelrail/secrets",
    "@levelrail/services",
    "@levelrail/spec",
  ],
  // Native-ish Node packages: load them from node_modules at run time instead of bundling.
  serverExternalPackages: ["postgres"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
