/**
 * Syntax colouring for code blocks: highlight.js 11 produces HTML spans,
 * which we turn into theme colours (highlight.js has no ANSI output, and the
 * ANSI wrappers on npm pull in highlight.js 10 and chalk).
 *
 * @module
 */
// The common build (~40 popular languages) loads in a third of the full one's time.
// The "common" build (about 40 popular languages) loads in a third of the
// full build's time, which matters for start-up.
import hljs from "highlight.js/lib/common";
import type { Theme, ThemeColor } from "../theme.ts";

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

/** Whether highlight.js knows `language` (a name or alias such as "ts"). */
export function isKnownLanguage(language: string | undefined): boolean {
  return language !== undefined && language !== "" && hljs.getLanguage(language) !== undefined;
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

/**
 * Colours `code` for `language` (any highlight.js name or alias) and returns
 * one styled string per source line. Unknown or absent languages come back
 * in the plain code-block colour; highlight.js is never asked to guess.
 *
 * @example
 * ```ts
 * import { createTheme, highlightCode } from "@panto/tui";
 * const lines = highlightCode("const a = 1;\nlet b;", "ts", createTheme({ noColor: true }));
 * console.assert(lines.length === 2 && lines[0] === "const a = 1;");
 * ```
 */
export function highlightCode(code: string, language: string | undefined, theme: Theme): string[] {
  const base: ThemeColor = "mdCodeBlock";
  if (!theme.colorEnabled || !isKnownLanguage(language)) {
    return code.split("\n").map((line) => theme.fg(base, line));
  }
  const html = hljs.highlight(code, { language: language ?? "", ignoreIllegals: true }).value;
  return htmlToLines(html, theme, base);
}
