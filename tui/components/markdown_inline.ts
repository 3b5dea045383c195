/**
 * Inline markdown (emphasis, code spans, links…) to one styled string.
 *
 * @module
 */
import type { Links, MarkedToken, Token } from "marked";
import type { Theme } from "../theme.ts";

/** What block and inline rendering share. */
export interface MarkdownStyle {
  /** Colours and attributes. */
  theme: Theme;
  /** Applied to plain text runs (e.g. dim italic for thinking). */
  text: (text: string) => string;
  /** Wrap link text in OSC 8 hyperlinks. */
  hyperlinks: boolean;
  /** The document's link definitions (shared, filled while lexing). */
  links: Links;
}

/**
 * Applies the text style line by line, so no style is open across a line
 * break: a paragraph then renders the same in one piece or in segments.
 */
function styleText(text: string, style: MarkdownStyle): string {
  return text.includes("\n") ? text.split("\n").map(style.text).join("\n") : style.text(text);
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

/** Decodes the character references LLM output actually uses. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body.startsWith("#")) {
      const hex = body[1] === "x" || body[1] === "X";
      const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

function renderLink(href: string, label: string, style: MarkdownStyle): string {
  const { theme } = style;
  const text = theme.underline(theme.fg("mdLink", label));
  const linked = style.hyperlinks ? `\x1b]8;;${href}\x07${text}\x1b]8;;\x07` : text;
  const plainHref = href.startsWith("mailto:") ? href.slice(7) : href;
  const labelIsHref = label === href || label === plainHref;
  return labelIsHref ? linked : `${linked} ${theme.fg("mdLinkUrl", `(${href})`)}`;
}

function renderToken(token: MarkedToken, style: MarkdownStyle): string {
  const { theme } = style;
  switch (token.type) {
    case "text":
      return token.tokens !== undefined && token.tokens.length > 0
        ? renderInline(token.tokens, style)
        : styleText(decodeEntities(token.text), style);
    case "escape":
      return styleText(token.text, style);
    case "strong":
      return theme.bold(renderInline(token.tokens, style));
    case "em":
      return theme.italic(renderInline(token.tokens, style));
    case "del":
      return theme.strikethrough(renderInline(token.tokens, style));
    case "codespan":
      return theme.fg("mdCode", decodeEntities(token.text));
    case "br":
      return "\n";
    case "link":
      return renderLink(token.href, renderPlain(token.tokens), style);
    case "image":
      return theme.fg("mdLink", `[image: ${token.text || token.href}]`) +
        ` ${theme.fg("mdLinkUrl", `(${token.href})`)}`;
    case "checkbox":
      return theme.fg("mdListBullet", token.checked ? "[x] " : "[ ] ");
    case "html":
      return theme.fg("muted", token.text);
    default:
      return styleText(decodeEntities(token.raw), style);
  }
}

/** Link labels are styled as a whole, so flatten their inner tokens to text. */
function renderPlain(tokens: readonly Token[]): string {
  let out = "";
  for (const token of tokens) {
    const marked = token as MarkedToken;
    if ("tokens" in marked && Array.isArray(marked.tokens)) out += renderPlain(marked.tokens);
    else if (marked.type === "br") out += " ";
    else out += decodeEntities("text" in marked ? String(marked.text) : marked.raw);
  }
  return out;
}

/**
 * Renders inline tokens to one styled string (may contain `\n` from hard
 * breaks and soft line breaks, which are kept: model output relies on them).
 */
export function renderInline(tokens: readonly Token[], style: MarkdownStyle): string {
  let out = "";
  for (const token of tokens) out += renderToken(token as MarkedToken, style);
  return out;
}
