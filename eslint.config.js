// Lint for the whole monorepo: ESLint's and typescript-eslint's recommended rules, nothing more.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** The Node globals our plain .js/.mjs scripts use (TypeScript files are checked by tsc instead). */
const nodeGlobals = Object.fromEntries(
  [
    "process", "console", "Buffer", "URL", "URLSearchParams", "fetch", "AbortController", "AbortSignal",
    "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "queueMicrotask",
    "structuredClone", "TextEncoder", "TextDecoder", "globalThis",
  ].map((name) => [name, "readonly"]),
);

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/.next/**",
      "**/dist/**",
      "drizzle/**",
      "**/test-results/**",
      "**/playwright-report/**",
      ".levelrail*/**",
      ".turbo/**",
      "**/next-env.d.ts",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    // The codebase marks deliberately unused names with a leading underscore.
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: nodeGlobals },
  },
);
