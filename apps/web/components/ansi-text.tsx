import { ansiNodes } from "@/lib/ansi";

/** Text with ANSI colour codes, rendered as spans (lib/ansi.ts); a page loads it where it shows such text (next/dynamic). */
export function AnsiText({ text }: { text: string }) {
  return <>{ansiNodes(text)}</>;
}
