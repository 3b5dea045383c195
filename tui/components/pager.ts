/**
 * A full-screen reader of many lines, with less's keys: scrolling, search
 * with highlighted matches, and jumps between marked lines. Shown with
 * {@linkcode TUI.showFullScreen}.
 *
 * @module
 */
import type { Component } from "../component.ts";
import { parseKey } from "../keys.ts";
import { pastedText } from "../input_splitter.ts";
import { defaultTheme, type Theme } from "../theme.ts";
import { truncateToWidth } from "../text_width.ts";
import { findMatches, highlightLine, type PagerMatch } from "./pager_search.ts";

/** What a {@linkcode Pager} shows at one width. */
export interface PagerContent {
  /** The lines, each at most the width wide. */
  lines: readonly string[];
  /** Indices of the lines `t`/`T` jump between (tool calls in a transcript), ascending. */
  marks: readonly number[];
}

/** Where a {@linkcode Pager} opens. */
export type PagerStart = "top" | "end" | "lastMark";

/** Options for {@linkcode Pager}. */
export interface PagerOptions {
  /** The content for a width; asked again when the width changes. */
  content: (width: number) => PagerContent;
  /** The screen's height in rows: the last row is the status line. */
  rows: () => number;
  /** Called on `q`, esc, ctrl+c or a key `closes`. */
  onClose: () => void;
  /** Other keys that close it (the app key that opened it, so that it toggles). */
  closes?: (data: string) => boolean;
  /** Colours; defaults to {@linkcode defaultTheme}. */
  theme?: Theme;
  /** Named at the start of the status line. */
  title?: string;
  /** What a mark is, for the status line (default "mark"). */
  markName?: string;
  /** Where it opens: the first line, the end (default), or the last mark. */
  start?: PagerStart;
}

/** The keys that move the view, by the key's text or name. */
const MOVES: Readonly<Record<string, (pager: Pager) => void>> = {
  "j": (p) => p.scrollBy(1),
  "down": (p) => p.scrollBy(1),
  "ctrl+n": (p) => p.scrollBy(1),
  "ctrl+e": (p) => p.scrollBy(1),
  "enter": (p) => p.scrollBy(1),
  "k": (p) => p.scrollBy(-1),
  "up": (p) => p.scrollBy(-1),
  "ctrl+p": (p) => p.scrollBy(-1),
  "ctrl+y": (p) => p.scrollBy(-1),
  " ": (p) => p.scrollBy(p.pageRows),
  "space": (p) => p.scrollBy(p.pageRows),
  "f": (p) => p.scrollBy(p.pageRows),
  "ctrl+f": (p) => p.scrollBy(p.pageRows),
  "pagedown": (p) => p.scrollBy(p.pageRows),
  "b": (p) => p.scrollBy(-p.pageRows),
  "ctrl+b": (p) => p.scrollBy(-p.pageRows),
  "pageup": (p) => p.scrollBy(-p.pageRows),
  "d": (p) => p.scrollBy(Math.ceil(p.pageRows / 2)),
  "ctrl+d": (p) => p.scrollBy(Math.ceil(p.pageRows / 2)),
  "u": (p) => p.scrollBy(-Math.ceil(p.pageRows / 2)),
  "ctrl+u": (p) => p.scrollBy(-Math.ceil(p.pageRows / 2)),
  "g": (p) => p.scrollTo(0),
  "<": (p) => p.scrollTo(0),
  "home": (p) => p.scrollTo(0),
  "G": (p) => p.scrollTo(Infinity),
  ">": (p) => p.scrollTo(Infinity),
  "end": (p) => p.scrollTo(Infinity),
  "n": (p) => p.nextMatch(1),
  "N": (p) => p.nextMatch(-1),
  "t": (p) => p.nextMark(1),
  "T": (p) => p.nextMark(-1),
};

/**
 * Shows lines a screenful at a time, like `less`: j/k and the arrows move a
 * line, space/b and PgDn/PgUp a page, d/u half a page, g/G to the ends;
 * `/` types a pattern (enter searches, esc gives up), n/N go to the next and
 * previous match, every match highlighted and the current one set apart;
 * t/T go to the next and previous mark; q or esc closes. The last row is a
 * status line saying where the view is. {@linkcode Pager.render} always
 * returns a whole screen of rows.
 *
 * @example
 * ```ts
 * import { Pager } from "@panto/tui";
 * const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`);
 * const pager = new Pager({
 *   content: () => ({ lines, marks: [9, 29] }),
 *   rows: () => 10,
 *   onClose: () => {},
 *   start: "top",
 * });
 * pager.render(40);
 * pager.handleInput("t");
 * console.assert(pager.render(40)[0] === "line 10");
 * pager.handleInput("/");
 * for (const key of "line 42\r") pager.handleInput(key);
 * console.assert(pager.top === 41);
 * ```
 */
export class Pager implements Component {
  /** Focused by the engine (no effect: the pager draws no cursor). */
  focused = false;
  readonly #options: PagerOptions;
  readonly #theme: Theme;
  #width = -1;
  #content: PagerContent = { lines: [], marks: [] };
  #top = 0;
  #placed = false;
  /** Rows of lines the last render showed: the view was at the end if they reached it. */
  #shownRows = 0;
  /** The pattern being typed after `/`, or null when not typing. */
  #typing: string | null = null;
  #pattern = "";
  #matches: PagerMatch[] = [];
  /** Index in `#matches` of the current match, or -1. */
  #current = -1;
  /** A message for the status line (pattern not found, wrapped), until the next key. */
  #message = "";

  /**
   * A pager over `options.lines`, at its top.
   *
   * @param options The content, the screen's height and what closing does.
   */
  constructor(options: PagerOptions) {
    this.#options = options;
    this.#theme = options.theme ?? defaultTheme();
  }

  /** Index of the line on the first row. */
  get top(): number {
    return this.#top;
  }

  /** How many rows show lines (the screen less the status line). */
  get pageRows(): number {
    return Math.max(1, this.#options.rows() - 1);
  }

  /** How many places the current pattern was found. */
  get matchCount(): number {
    return this.#matches.length;
  }

  /** Moves the view `delta` lines (down when positive), within the content. */
  scrollBy(delta: number): void {
    this.scrollTo(this.#top + delta);
  }

  /** Puts line `line` on the first row, or as near as the content allows. */
  scrollTo(line: number): void {
    const last = Math.max(0, this.#content.lines.length - this.pageRows);
    this.#top = Math.max(0, Math.min(last, line));
  }

  /**
   * Goes to the next match (`direction` 1) or the previous one (-1) of the
   * last pattern searched, wrapping at the ends.
   */
  nextMatch(direction: 1 | -1): void {
    if (this.#pattern === "") return void (this.#message = "No pattern yet: type / to search");
    if (this.#matches.length === 0) return void (this.#message = this.#notFound());
    let next = this.#current + direction;
    if (next >= this.#matches.length || next < 0) {
      next = (next + this.#matches.length) % this.#matches.length;
      this.#message = direction > 0 ? "Search wrapped to the top" : "Search wrapped to the end";
    }
    this.#showMatch(next);
  }

  /**
   * Puts the next mark below the first row (`direction` 1) or the previous
   * one above it on the first row, or as near as the content allows: near
   * the end, marks the view cannot move to are passed over.
   */
  nextMark(direction: 1 | -1): void {
    const marks = this.#content.marks;
    const from = this.#top;
    const ahead = direction > 0
      ? marks.filter((line) => line > from)
      : marks.filter((line) => line < from).reverse();
    for (const mark of ahead) {
      this.scrollTo(mark);
      if (this.#top !== from) return;
    }
    const name = this.#options.markName ?? "mark";
    this.#message = marks.length === 0
      ? `No ${name}s here`
      : `No ${direction > 0 ? "later" : "earlier"} ${name}`;
  }

  /** Handles a key (see the class notes). */
  handleInput(data: string): void {
    this.#message = "";
    if (this.#typing !== null) return this.#typeKey(data);
    const key = parseKey(data);
    if (key === null) return;
    const plain = !key.ctrl && !key.alt && key.text !== undefined;
    const name = plain
      ? key.text!
      : `${key.ctrl ? "ctrl+" : ""}${key.alt ? "alt+" : ""}${key.code}`;
    const closing = name === "q" || name === "escape" || name === "ctrl+c";
    if (closing || this.#options.closes?.(data) === true) return this.#options.onClose();
    if (name === "/") {
      this.#typing = "";
      return;
    }
    MOVES[name]?.(this);
  }

  /** A screenful: the lines from `top`, matches highlighted, then the status line. */
  render(width: number): string[] {
    this.#refresh(width);
    const rows = this.#options.rows();
    const shown = this.#content.lines.slice(this.#top, this.#top + this.pageRows)
      .map((line, row) => this.#highlighted(truncateToWidth(line, width), this.#top + row));
    while (shown.length < this.pageRows) shown.push(this.#theme.fg("dim", "~"));
    if (rows < 2) return shown.slice(0, Math.max(0, rows));
    return [...shown, this.#statusLine(width)];
  }

  /** Always 0: the engine diffs a full screen by rows itself. */
  firstLineChanged(): number | null {
    return 0;
  }

  /** Asks for the content again on the next render. */
  invalidate(): void {
    this.#width = -1;
  }

  /**
   * Builds the content for a new width, keeping the view at the same place
   * in it, and keeps the view within the content on a new height.
   */
  #refresh(width: number): void {
    const before = this.#content.lines.length;
    // A view at the end stays at the end: the last lines are what was being read.
    const atEnd = this.#placed && this.#top + this.#shownRows >= before;
    this.#shownRows = this.pageRows;
    if (width === this.#width) return this.scrollTo(atEnd ? Infinity : this.#top);
    const at = this.#current >= 0 ? this.#matches[this.#current] : undefined;
    this.#content = this.#options.content(width);
    this.#width = width;
    this.#matches = findMatches(this.#content.lines, this.#pattern);
    this.#current = -1;
    if (!this.#placed) {
      this.#placed = true;
      return this.#place();
    }
    const after = this.#content.lines.length;
    const line = at === undefined ? this.#top : at.line;
    this.scrollTo(atEnd ? Infinity : before === 0 ? 0 : Math.round(line * after / before));
    // The current match is the first one in view again, n and N go on from there.
    if (at !== undefined) this.#current = this.#matches.findIndex((m) => m.line >= this.#top);
  }

  /** The first position: the start, the end or the last mark. */
  #place(): void {
    const start = this.#options.start ?? "end";
    const lastMark = this.#content.marks.at(-1);
    if (start === "top") this.scrollTo(0);
    else if (start === "lastMark" && lastMark !== undefined) this.scrollTo(lastMark);
    else this.scrollTo(Infinity);
  }

  #typeKey(data: string): void {
    const typing = this.#typing!;
    const pasted = pastedText(data);
    if (pasted !== null) return void (this.#typing = typing + pasted.replace(/[\r\n]+/g, " "));
    const key = parseKey(data);
    if (key === null) return;
    if (key.code === "escape" || (key.ctrl && key.code === "c")) {
      this.#typing = null;
      return;
    }
    if (key.code === "enter") {
      this.#typing = null;
      return this.#search(typing === "" ? this.#pattern : typing);
    }
    if (key.code === "backspace") {
      // Backspace on an empty pattern gives up, as in less.
      if (typing === "") this.#typing = null;
      else this.#typing = [...typing].slice(0, -1).join("");
      return;
    }
    if (!key.ctrl && !key.alt && key.text !== undefined) this.#typing = typing + key.text;
  }

  /** Searches `pattern` and goes to its first match at or after the first row. */
  #search(pattern: string): void {
    this.#pattern = pattern;
    this.#matches = findMatches(this.#content.lines, pattern);
    this.#current = -1;
    if (pattern === "") return;
    if (this.#matches.length === 0) return void (this.#message = this.#notFound());
    const from = this.#matches.findIndex((match) => match.line >= this.#top);
    if (from === -1) this.#message = "Search wrapped to the top";
    this.#showMatch(Math.max(0, from));
  }

  /** Makes match `index` the current one; scrolls it to the first row unless it is on screen. */
  #showMatch(index: number): void {
    this.#current = index;
    const line = this.#matches[index]!.line;
    if (line < this.#top || line >= this.#top + this.pageRows) this.scrollTo(line);
  }

  #notFound(): string {
    return `Pattern not found: ${this.#pattern}`;
  }

  #highlighted(line: string, index: number): string {
    const here = this.#matches.filter((match) => match.line === index);
    if (here.length === 0) return line;
    const current = this.#matches[this.#current];
    return highlightLine(
      line,
      here,
      (text, at) =>
        here[at] === current
          ? this.#theme.inverse(this.#theme.bold(text))
          : this.#theme.inverse(text),
    );
  }

  #statusLine(width: number): string {
    if (this.#typing !== null) {
      return truncateToWidth(`/${this.#typing}█`, width);
    }
    const total = this.#content.lines.length;
    const last = Math.min(total, this.#top + this.pageRows);
    const percent = total === 0 ? 100 : Math.round((last / total) * 100);
    const parts = [
      ...(this.#options.title === undefined ? [] : [this.#options.title]),
      `lines ${total === 0 ? 0 : this.#top + 1}-${last} of ${total} (${percent}%)`,
    ];
    if (this.#message !== "") parts.push(this.#message);
    else if (this.#matches.length > 0) {
      parts.push(`match ${this.#current + 1}/${this.#matches.length} "${this.#pattern}"`);
    }
    const mark = this.#options.markName ?? "mark";
    parts.push(`/ search · n/N match · t/T ${mark} · q back`);
    return this.#theme.inverse(truncateToWidth(parts.join(" · "), width, "…"));
  }
}
