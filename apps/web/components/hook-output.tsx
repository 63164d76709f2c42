"use client";
import { useLayoutEffect, useMemo, useRef } from "react";
import { ansiNodes } from "@/lib/ansi";

/**
 * A hook's combined output with its ANSI colours; everything else in it is
 * shown as inert text (React text children, never HTML). While the operator
 * is at the bottom it follows new output; scrolling up stops that.
 */
export function HookOutput({ output, running }: { output: string; running: boolean }) {
  const ref = useRef<HTMLPreElement>(null);
  const follow = useRef(true);
  const nodes = useMemo(() => ansiNodes(output), [output]);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [output]);
  return (
    <div className="stack">
      <pre
        ref={ref}
        className="log"
        role="log"
        aria-label="Hook output"
        aria-busy={running}
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {nodes}
      </pre>
      {output === "" && <p className="muted">{running ? "No output yet; it appears here as the hook prints it." : "The hook printed nothing."}</p>}
    </div>
  );
}
