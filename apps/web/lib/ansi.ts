import { type ReactNode, createElement } from "react";

/**
 * ANSI SGR colours in hook output, as styled text segments. Only the
 * foreground colours 30–37 and 90–97, default colour (39), bold (1), normal
 * intensity (22) and reset (0, or an empty SGR) are kept; every other escape
 * sequence (cursor moves, erases, OSC titles and links, charset switches,
 * 256-colour and RGB colours, backgrounds) and every other control character
 * is dropped. Nothing is ever interpreted as HTML: segments are plain strings.
 */

export const ANSI_COLORS = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"] as const;
export type AnsiColor = (typeof ANSI_COLORS)[number] | `bright-${(typeof ANSI_COLORS)[number]}`;

export interface AnsiSegment {
  text: string;
  fg: AnsiColor | null;
  bold: boolean;
}

interface Style {
  fg: AnsiColor | null;
  bold: boolean;
}

const ESC = "\u001b";
const BEL = "\u0007";
/** 8-bit C1 introducers, as a decoder may hand them over: CSI, OSC, and the string controls DCS, SOS, PM, APC. */
const C1_CSI = "\u009b";
const C1_STRING = new Set(["\u0090", "\u0098", "\u009d", "\u009e", "\u009f"]);
/** After ESC: the introducers of a string terminated by BEL or ST (OSC `]`, DCS `P`, SOS `X`, PM `^`, APC `_`). */
const ESC_STRING = new Set(["]", "P", "X", "^", "_"]);

const inRange = (ch: string | undefined, lo: number, hi: number) => ch !== undefined && ch.charCodeAt(0) >= lo && ch.charCodeAt(0) <= hi;

/** Applies one SGR parameter list to a style. */
function applySgr(params: string, style: Style): Style {
  // A private or malformed SGR (`ESC[?1m`, `ESC[1:2m`) changes nothing.
  if (!/^[0-9;]*$/.test(params)) return style;
  const codes = params === "" ? [0] : params.split(";").map((p) => (p === "" ? 0 : Number(p)));
  let next = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === 0) next = { fg: null, bold: false };
    else if (code === 1) next.bold = true;
    else if (code === 22) next.bold = false;
    else if (code === 39) next.fg = null;
    else if (code >= 30 && code <= 37) next.fg = ANSI_COLORS[code - 30]!;
    else if (code >= 90 && code <= 97) next.fg = `bright-${ANSI_COLORS[code - 90]!}`;
    else if (code === 38 || code === 48 || code === 58) {
      // Extended colours: skip their arguments so `38;5;31` is not read as "red".
      const mode = codes[i + 1];
      i += mode === 5 ? 2 : mode === 2 ? 4 : 1;
    }
    // Anything else (backgrounds, underline, blink…) is ignored.
  }
  return next;
}

/** The index just past a string control's terminator (BEL, ESC \, or the C1 ST), or the end of the text. */
function skipString(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (ch === BEL || ch === "\u009c") return i + 1;
    if (ch === ESC && text[i + 1] === "\\") return i + 2;
  }
  return text.length;
}

/** CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E. Returns [params, final, end]. */
function readCsi(text: string, from: number): { params: string; final: string | null; end: number } {
  let i = from;
  while (inRange(text[i], 0x30, 0x3f)) i++;
  const params = text.slice(from, i);
  while (inRange(text[i], 0x20, 0x2f)) i++;
  const final = inRange(text[i], 0x40, 0x7e) ? text[i]! : null;
  // An unfinished sequence (output cut mid-escape) is dropped up to where it stopped.
  return { params, final, end: final === null ? i : i + 1 };
}

/** The text as styled segments; adjacent text of the same style is one segment, empty segments are omitted. */
export function parseAnsi(text: string): AnsiSegment[] {
  const segments: AnsiSegment[] = [];
  let style: Style = { fg: null, bold: false };
  let buffer = "";
  const flush = () => {
    if (buffer === "") return;
    const last = segments[segments.length - 1];
    if (last && last.fg === style.fg && last.bold === style.bold) last.text += buffer;
    else segments.push({ text: buffer, fg: style.fg, bold: style.bold });
    buffer = "";
  };
  const restyle = (next: Style) => {
    if (next.fg === style.fg && next.bold === style.bold) return;
    flush();
    style = next;
  };

  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ESC || ch === C1_CSI) {
      const csi = ch === C1_CSI ? i + 1 : text[i + 1] === "[" ? i + 2 : -1;
      if (csi >= 0) {
        const { params, final, end } = readCsi(text, csi);
        if (final === "m") restyle(applySgr(params, style));
        i = end;
      } else if (ESC_STRING.has(text[i + 1] ?? "")) {
        i = skipString(text, i + 2);
      } else {
        // Other escapes: ESC, intermediates 0x20–0x2F, one final byte 0x30–0x7E (`ESC(B`, `ESC7`, `ESC=`).
        let j = i + 1;
        while (inRange(text[j], 0x20, 0x2f)) j++;
        i = inRange(text[j], 0x30, 0x7e) ? j + 1 : j;
      }
      continue;
    }
    if (C1_STRING.has(ch)) {
      i = skipString(text, i + 1);
      continue;
    }
    if (ch === "\r") {
      // CRLF is one line break; a lone CR (a progress bar redrawing its line) starts a new line, so nothing is hidden.
      buffer += "\n";
      i += text[i + 1] === "\n" ? 2 : 1;
      continue;
    }
    const code = ch.charCodeAt(0);
    const control = (code < 0x20 && ch !== "\n" && ch !== "\t") || code === 0x7f || (code >= 0x80 && code <= 0x9f);
    if (!control) buffer += ch;
    i++;
  }
  flush();
  return segments;
}

/** The class names of a segment's style: `ansi-red`, `ansi-bright-blue`, `ansi-bold`. */
export function ansiClassName(segment: Pick<AnsiSegment, "fg" | "bold">): string | undefined {
  const names = [segment.fg ? `ansi-${segment.fg}` : null, segment.bold ? "ansi-bold" : null].filter((n) => n !== null);
  return names.length ? names.join(" ") : undefined;
}

/** The segments as React children: styled text in <span>s, plain text as bare strings; always text, never HTML. */
export function ansiNodes(text: string): ReactNode[] {
  return parseAnsi(text).map((s, i) => {
    const className = ansiClassName(s);
    return className ? createElement("span", { key: i, className }, s.text) : s.text;
  });
}
