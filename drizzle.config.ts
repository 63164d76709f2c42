import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./packages/db/src/schema/*/table.ts",
  out: "./drizzle",
  strict: true,
});
