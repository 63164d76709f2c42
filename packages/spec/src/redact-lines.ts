import { REDACTED, redactionForms } from "./redact";

/** A line of a stream (a container's log), as far as redaction cares. */
export interface RedactableLine {
  line: string;
  /** Printed with no newline after it: the engine cut a longer line here (its 16 KiB frames), the next line goes on with it. */
  partial?: boolean | undefined;
}

interface Range {
  start: number;
  end: number;
}

/** Every occurrence of `forms` (longest first) in `text`, none overlapping a longer one, by start. */
function findRanges(text: string, forms: readonly string[]): Range[] {
  const ranges: Range[] = [];
  for (const f of forms) {
    for (let at = text.indexOf(f); at >= 0; at = text.indexOf(f, at + 1)) {
      const r = { start: at, end: at + f.length };
      if (!ranges.some((x) => x.start < r.end && r.start < x.end)) ranges.push(r);
    }
  }
  return ranges.sort((a, b) => a.start - b.start);
}

/** How many characters at the end of `text` could be the start of one of `forms` (the longest such suffix). */
function heldTail(text: string, forms: readonly string[]): number {
  let held = 0;
  for (const f of forms) {
    // Only where its first character is (a native search), longest candidate first.
    for (let i = text.indexOf(f[0]!, Math.max(0, text.length - (f.length - 1))); i >= 0 && i < text.length - held; i = text.indexOf(f[0]!, i + 1)) {
      let j = i;
      while (j < text.length && text.charCodeAt(j) === f.charCodeAt(j - i)) j++;
      if (j === text.length) {
        held = text.length - i;
        break;
      }
    }
  }
  return held;
}

/** `line` (which starts at `offset` of the text) with each range's part in it replaced. */
function applyRanges(line: string, offset: number, ranges: readonly Range[]): string {
  let out = "";
  let pos = 0;
  for (const r of ranges) {
    const start = Math.max(r.start - offset, 0);
    const end = Math.min(r.end - offset, line.length);
    if (end <= start || start < pos) continue;
    out += line.slice(pos, start) + REDACTED;
    pos = end;
  }
  return out + line.slice(pos);
}

/**
 * Redacts secret values from a stream of lines, across line boundaries: a multi-line value (a PEM
 * key) and a value the engine cut at its 16 KiB frame boundary are found in the text as printed
 * (each line, and its newline unless it is `partial`). A line whose end could be the start of a
 * value is held back until the lines after it tell (at most the longest value's length of text,
 * plus the line that holds its start); `flush` hands over what is held when the stream ends or
 * goes quiet. Every part of a value is replaced, in each line it spans.
 */
export class LineRedactor<T extends RedactableLine> {
  private pending: T[] = [];
  private readonly forms: string[];

  constructor(values: Iterable<string>) {
    this.forms = redactionForms(values);
  }

  /** Whether lines are held back, waiting for what follows. */
  get holding(): boolean {
    return this.pending.length > 0;
  }

  /** Takes the next line; returns the lines that are safe to pass on now, redacted, in order. */
  push(line: T): T[] {
    if (this.forms.length === 0) return [line];
    this.pending.push(line);
    return this.release(false);
  }

  /** Every line held, redacted: a value's start at their end can no longer be completed. */
  flush(): T[] {
    return this.release(true);
  }

  private release(all: boolean): T[] {
    const lines = this.pending;
    if (lines.length === 0) return [];
    const starts: number[] = [];
    let text = "";
    for (const l of lines) {
      starts.push(text.length);
      text += l.partial ? l.line : `${l.line}\n`;
    }
    const ranges = findRanges(text, this.forms);
    let cut = all ? text.length : text.length - heldTail(text, this.forms);
    // Never pass on the first part of a value found whole but reaching into what is held.
    for (const r of ranges) if (r.start < cut && r.end > cut) cut = r.start;
    let n = 0;
    while (n < lines.length && (n + 1 < lines.length ? starts[n + 1]! : text.length) <= cut) n++;
    this.pending = lines.slice(n);
    if (ranges.length === 0) return lines.slice(0, n);
    return lines.slice(0, n).map((l, i) => ({ ...l, line: applyRanges(l.line, starts[i]!, ranges) }));
  }
}
