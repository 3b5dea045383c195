/**
 * Syntax colouring for code blocks: highlight.js 11 produces HTML spans,
 * which we turn into theme colours (highlight.js has no ANSI output, and the
 * ANSI wrappers on npm pull in highlight.js 10 and chalk).
 *
 * @module
 */
import { languageName, readyHighlighter } from "./highlight_languages.ts";
import type { Theme, ThemeColor } from "../theme.ts";

/** highlight.js, with the language asked for registered. */
type Highlighter = NonNullable<ReturnType<typeof readyHighlighter>>;

/** highlight.js scope (first class, without `hljs-`) → theme colour. */
const SCOPE_COLORS: Readonly<Record<string, ThemeColor>> = {
  keyword: "syntaxKeyword",
  "selector-tag": "syntaxKeyword",
  "template-tag": "syntaxKeyword",
  built_in: "syntaxBuiltin",
  type: "syntaxType",
  class: "syntaxType",
  literal: "syntaxLiteral",
  number: "syntaxNumber",
  operator: "syntaxOperator",
  punctuation: "syntaxPunctuation",
  property: "syntaxVariable",
  regexp: "syntaxRegexp",
  string: "syntaxString",
  char: "syntaxString",
  subst: "syntaxVariable",
  symbol: "syntaxLiteral",
  variable: "syntaxVariable",
  "template-variable": "syntaxVariable",
  title: "syntaxFunction",
  function: "syntaxFunction",
  params: "syntaxVariable",
  comment: "syntaxComment",
  doctag: "syntaxKeyword",
  quote: "syntaxComment",
  meta: "syntaxMeta",
  section: "syntaxFunction",
  tag: "syntaxTag",
  name: "syntaxTag",
  attr: "syntaxAttribute",
  attribute: "syntaxAttribute",
  "selector-id": "syntaxFunction",
  "selector-class": "syntaxFunction",
  "selector-attr": "syntaxAttribute",
  "selector-pseudo": "syntaxAttribute",
  bullet: "syntaxLiteral",
  link: "syntaxString",
  addition: "syntaxAddition",
  deletion: "syntaxDeletion",
};

const ENTITIES: Readonly<Record<string, string>> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#x27;": "'",
  "&#39;": "'",
};

function unescapeHtml(text: string): string {
  return text.includes("&")
    ? text.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (e) => ENTITIES[e] ?? e)
    : text;
}

function scopeColor(classAttribute: string): ThemeColor | undefined {
  const first = classAttribute.split(" ")[0] ?? "";
  const scope = first.startsWith("hljs-") ? first.slice(5) : first;
  return SCOPE_COLORS[scope] ?? SCOPE_COLORS[scope.split(".")[0] ?? ""];
}

/** Converts highlight.js HTML into styled lines (one per source line). */
function htmlToLines(html: string, theme: Theme, base: ThemeColor): string[] {
  const lines: string[] = [""];
  const stack: ThemeColor[] = [];
  const pattern = /<span class="([^"]*)">|<\/span>|([^<]+)/g;
  for (const match of html.matchAll(pattern)) {
    if (match[1] !== undefined) {
      stack.push(scopeColor(match[1]) ?? stack.at(-1) ?? base);
    } else if (match[2] !== undefined) {
      const color = stack.at(-1) ?? base;
      const parts = unescapeHtml(match[2]).split("\n");
      parts.forEach((part, index) => {
        if (index > 0) lines.push("");
        if (part !== "") lines[lines.length - 1] += theme.fg(color, part);
      });
    } else {
      stack.pop();
    }
  }
  return lines;
}

const BASE: ThemeColor = "mdCodeBlock";

/**
 * Longest run of lines highlighted as one piece. highlight.js cannot resume
 * a highlight, so code is cut into chunks that each start in the language's
 * top-level mode; a construct open longer than this (a huge block comment
 * or template string) is restarted after it, which bounds a streamed
 * fence's cost per delta.
 */
export const MAX_CHUNK_LINES = 40;

/** One highlighted run of source lines. */
interface Chunk {
  /** Styled lines, one per source line. */
  lines: string[];
  /** Whether highlight.js ended the run in the language's top-level mode. */
  atRoot: boolean;
}

function highlightChunk(
  hljs: Highlighter,
  lines: readonly string[],
  language: string,
  theme: Theme,
): Chunk {
  const result = hljs.highlight(lines.join("\n"), { language, ignoreIllegals: true });
  const top = (result as { _top?: unknown })._top;
  return {
    lines: htmlToLines(result.value, theme, BASE),
    atRoot: top === hljs.getLanguage(language),
  };
}

/** What {@linkcode CodeHighlighter.update} returns. */
export interface HighlightUpdate {
  /** Styled lines, one per line passed in. */
  lines: string[];
  /** How many leading lines are final: the next update starts after them. */
  settled: number;
}

/**
 * Line-by-line code colouring that can be extended as lines arrive.
 * Source lines are cut into chunks: a chunk ends after a line (never the
 * last one) where highlight.js is back in the top-level mode, or after
 * {@linkcode MAX_CHUNK_LINES} lines. Each chunk is highlighted on its own,
 * so a streamed fence re-highlights only its last chunk, and the cut
 * depends on the lines alone: streamed or not, the output is the same.
 */
export class CodeHighlighter {
  readonly #language: string | undefined;
  readonly #theme: Theme;
  /** Lines of the open chunk known not to end it, up to this index. */
  #openThrough = -1;
  /** A closed chunk of complete lines, not settled yet (indexes relative to the settled lines). */
  #kept: { start: number; end: number; chunk: Chunk } | null = null;

  /**
   * Colours `language` (a highlight.js name or alias; unknown: plain) with
   * `theme`. A language not loaded yet starts loading: the lines stay plain
   * and unsettled until it is there, a few milliseconds on.
   */
  constructor(language: string | undefined, theme: Theme) {
    const known = language !== undefined && languageName(language) !== undefined;
    this.#language = theme.colorEnabled && known ? language : undefined;
    this.#theme = theme;
  }

  /**
   * Colours `lines`: the lines after those settled by earlier updates.
   * The first `stable` of them will never change; a chunk that ends before
   * the last stable line is settled.
   */
  update(lines: readonly string[], stable: number): HighlightUpdate {
    const language = this.#language;
    const hljs = language === undefined ? undefined : readyHighlighter(language);
    if (language === undefined || hljs === undefined) {
      // While the language loads nothing is final: the update after it colours every line.
      const settled = language === undefined ? Math.max(0, Math.min(stable, lines.length) - 1) : 0;
      return { lines: lines.map((line) => this.#theme.fg(BASE, line)), settled };
    }
    const out: string[] = [];
    let start = 0;
    let settled = 0;
    let through = this.#openThrough;
    for (let k = through + 1; k < lines.length - 1; k++) {
      const chunk = this.#chunk(hljs, lines, start, k, language, k < stable);
      if (!chunk.atRoot && k - start + 1 < MAX_CHUNK_LINES) {
        if (start === settled && k < stable) through = k;
        continue;
      }
      out.push(...chunk.lines);
      start = k + 1;
      if (start < stable) {
        settled = start;
        through = start - 1;
      }
    }
    if (start < lines.length) {
      out.push(...highlightChunk(hljs, lines.slice(start), language, this.#theme).lines);
    }
    this.#openThrough = through - settled;
    const kept = this.#kept;
    this.#kept = kept !== null && kept.start >= settled
      ? { ...kept, start: kept.start - settled, end: kept.end - settled }
      : null;
    return { lines: out, settled };
  }

  /**
   * Highlights lines `start…end`. A closed chunk of complete lines that is
   * not settled yet (the next line might still be the last) is kept, so the
   * next update does not highlight it again.
   */
  #chunk(
    hljs: Highlighter,
    lines: readonly string[],
    start: number,
    end: number,
    language: string,
    complete: boolean,
  ): Chunk {
    const kept = this.#kept;
    if (kept !== null && kept.start === start && kept.end === end) return kept.chunk;
    const chunk = highlightChunk(hljs, lines.slice(start, end + 1), language, this.#theme);
    if (complete && chunk.atRoot) this.#kept = { start, end, chunk };
    return chunk;
  }
}

/**
 * Colours `code` for `language` (any highlight.js name or alias) and returns
 * one styled string per source line. Unknown or absent languages come back
 * in the plain code-block colour; highlight.js is never asked to guess. A
 * language not loaded yet (`loadLanguages`) comes back plain too,
 * and starts loading.
 *
 * @example
 * ```ts
 * import { createTheme, highlightCode } from "@panto/tui";
 * const lines = highlightCode("const a = 1;\nlet b;", "ts", createTheme({ noColor: true }));
 * console.assert(lines.length === 2 && lines[0] === "const a = 1;");
 * ```
 */
export function highlightCode(code: string, language: string | undefined, theme: Theme): string[] {
  const lines = code.split("\n");
  return new CodeHighlighter(language, theme).update(lines, lines.length).lines;
}
