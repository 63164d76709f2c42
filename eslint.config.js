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

/** Links prefetch when reached for, not when seen (apps/web/components/link.tsx; README: Page weight). */
const nextLink = { name: "next/link", message: 'import Link from "@/components/link": it prefetches on hover or focus, not when the link scrolls into view (README: Page weight)' };

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
    // The panel's client components: zod (31 kB gzip) must not reach a page's first load. Lists and
    // rules come from @levelrail/spec's zod-free modules; a form loads the API's schema on submit
    // (`await import("@levelrail/spec/service")`), or its card is a next/dynamic chunk.
    files: ["apps/web/components/**/*.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@levelrail/spec/*", "!@levelrail/spec/lists", "!@levelrail/spec/service-lists", "!@levelrail/spec/checks", "!@levelrail/spec/cron", "!@levelrail/spec/roles"],
              allowTypeImports: true,
              message: "pulls zod into the page: import lists from @levelrail/spec/lists, service-lists, checks or cron, and load a schema on submit with await import() (README: Page weight)",
            },
            { group: ["zod", "zod/*"], allowTypeImports: true, message: "zod stays out of client components (README: Page weight)" },
          ],
          paths: [nextLink],
        },
      ],
    },
  },
  {
    files: ["apps/web/app/**/*.{ts,tsx}"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { paths: [nextLink] }] },
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: nodeGlobals },
  },
);
