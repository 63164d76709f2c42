"use client";
import { useState } from "react";

/** A value with a button that copies it (where the clipboard is closed, the value stays selectable). */
export function Copyable({ label, text, copyLabel }: { label: string; text: string; copyLabel: string }) {
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied("yes");
    } catch {
      setCopied("no");
    }
  }
  return (
    <span className="inline">
      <span className="muted">{label}</span>
      <code className="mono">{text}</code>
      {copied !== "no" && (
        <button type="button" className="link" onClick={() => void copy()} aria-label={copyLabel}>
          {copied === "yes" ? "copied" : "copy"}
        </button>
      )}
    </span>
  );
}
