import type { NextConfig } from "next";
import { securityHeaders } from "./server/headers.mjs";

const config: NextConfig = {
  // The workspace packages export TypeScript source.
  transpilePackages: [
    "@levelrail/auth",
    "@levelrail/config",
    "@levelrail/db",
    "@levelrail/docker",
    "@levelrail/secrets",
    "@levelrail/services",
    "@levelrail/spec",
  ],
  // Native-ish Node packages: load them from node_modules at run time instead of bundling.
  serverExternalPackages: ["postgres", "nodemailer", "dockerode"],
  poweredByHeader: false,
  // `npm start` builds with LEVELRAIL_BUILD_FAST=1: the type check is `tsc`'s job (`npm test`'s
  // typecheck step), not the start path's. Without it (a plain `next build`) Next checks types.
  typescript: { ignoreBuildErrors: process.env.LEVELRAIL_BUILD_FAST === "1" },
  // No page of the panel may be framed by another site (clickjacking of Deploy and Delete), and more.
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
  // The Deploys page lived at /metrics; old links and bookmarks land on its new address.
  async redirects() {
    return [{ source: "/metrics", destination: "/deploys", permanent: true }];
  },
  reactStrictMode: true,
};

export default config;
