import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ansiClassName, ansiNodes, parseAnsi } from "./ansi";

const E = "\u001b";

describe("parseAnsi", () => {
  it("keeps plain text as one unstyled segment", () => {
    expect(parseAnsi("hello\nworld\ttab")).toEqual([{ text: "hello\nworld\ttab", fg: null, bold: false }]);
  });

  it("colours text with 30–37 and 90–97 until the default colour (39)", () => {
    expect(parseAnsi(`a${E}[31mred${E}[92mbright green${E}[39mplain`)).toEqual([
      { text: "a", fg: null, bold: false },
      { text: "red", fg: "red", bold: false },
      { text: "bright green", fg: "bright-green", bold: false },
      { text: "plain", fg: null, bold: false },
    ]);
    expect(parseAnsi(`${E}[30mk${E}[37mw${E}[90mK${E}[97mW`).map((s) => s.fg)).toEqual(["black", "white", "bright-black", "bright-white"]);
  });

  it("sets bold with 1, clears it with 22, and combines it with a colour in one sequence", () => {
    expect(parseAnsi(`${E}[1;33mwarn${E}[22mthin`)).toEqual([
      { text: "warn", fg: "yellow", bold: true },
      { text: "thin", fg: "yellow", bold: false },
    ]);
  });

  it("resets everything with 0 and with an empty SGR", () => {
    expect(parseAnsi(`${E}[1;31mx${E}[0my${E}[34mz${E}[mw`)).toEqual([
      { text: "x", fg: "red", bold: true },
      { text: "y", fg: null, bold: false },
      { text: "z", fg: "blue", bold: false },
      { text: "w", fg: null, bold: false },
    ]);
  });

  it("merges text whose style did not change and drops empty segments", () => {
    expect(parseAnsi(`${E}[31m${E}[0mab${E}[4mcd${E}[32m${E}[32m`)).toEqual([{ text: "abcd", fg: null, bold: false }]);
  });

  it("strips every other escape sequence without leaving any of its bytes", () => {
    const noisy = [
      `${E}[2K${E}[1A${E}[?25l`, // erase line, cursor up, hide cursor
      `${E}]0;window title${E}\\`, // OSC title ended by ST
      `${E}]8;;https://evil.example${"\u0007"}link${E}]8;;${"\u0007"}`, // OSC 8 hyperlink ended by BEL
      `${E}(B${E}7${E}=`, // charset, save cursor, keypad mode
      `${E}P1$r${E}\\`, // DCS
      `${E}[38;5;31mx${E}[48;2;1;2;3my${E}[44mz`, // 256-colour, RGB and background colours
      "\u009b2KC1", // 8-bit CSI
      "bell\u0007 back\u0008space\u007f",
    ].join("");
    const segments = parseAnsi(noisy);
    expect(segments.map((s) => s.text).join("")).toBe("linkxyzC1bell backspace");
    // 38;5;31 is a 256-colour, not red; the background changes nothing either.
    expect(segments.every((s) => s.fg === null && !s.bold)).toBe(true);
  });

  it("reads the 8-bit CSI like ESC [", () => {
    expect(parseAnsi("\u009b35mm")).toEqual([{ text: "m", fg: "magenta", bold: false }]);
  });

  it("drops an escape cut off at the end of the output (a run still streaming)", () => {
    expect(parseAnsi(`done${E}[3`)).toEqual([{ text: "done", fg: null, bold: false }]);
    expect(parseAnsi(`done${E}`)).toEqual([{ text: "done", fg: null, bold: false }]);
    expect(parseAnsi(`done${E}]0;unterminated`)).toEqual([{ text: "done", fg: null, bold: false }]);
  });

  it("turns CRLF and lone CR into line breaks", () => {
    expect(parseAnsi("a\r\nb\rc")).toEqual([{ text: "a\nb\nc", fg: null, bold: false }]);
  });

  it("keeps HTML in the output as literal text in the segments", () => {
    const html = `<script>alert(1)</script><img src=x onerror=alert(2)>&amp;`;
    expect(parseAnsi(`${E}[31m${html}${E}[0m`)).toEqual([{ text: html, fg: "red", bold: false }]);
  });
});

describe("ansiNodes", () => {
  it("renders styled text in spans with classes and HTML as escaped text", () => {
    const markup = renderToStaticMarkup(createElement("pre", null, ansiNodes(`ok ${E}[1;91m<script>alert(1)</script>${E}[0m "x" & y`)));
    expect(markup).toBe(`<pre>ok <span class="ansi-bright-red ansi-bold">&lt;script&gt;alert(1)&lt;/script&gt;</span> &quot;x&quot; &amp; y</pre>`);
    expect(markup).not.toContain("<script>");
  });

  it("names classes by colour and weight", () => {
    expect(ansiClassName({ fg: "cyan", bold: false })).toBe("ansi-cyan");
    expect(ansiClassName({ fg: null, bold: true })).toBe("ansi-bold");
    expect(ansiClassName({ fg: null, bold: false })).toBeUndefined();
  });
});
