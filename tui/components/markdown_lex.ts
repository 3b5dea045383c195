/**
 * The `marked` lexer as panto configures it: GFM, and strikethrough only
 * with `~~`. Link definitions are shared per document.
 *
 * @module
 */
import { getDefaults, Lexer, Tokenizer } from "marked";
import type { Links, MarkedToken, Token, Tokens } from "marked";

/**
 * Strikethrough only with `~~`: models write "~5 minutes" and a lone tilde
 * would otherwise strike through everything up to the next one.
 */
class StrictStrikethroughTokenizer extends Tokenizer {
  override del(src: string, maskedSrc: string, prevChar?: string): Tokens.Del | undefined {
    if (!src.startsWith("~~")) return undefined;
    const token = super.del(src, maskedSrc, prevChar);
    return token !== undefined && token.raw.endsWith("~~") ? token : undefined;
  }
}

/**
 * Characters and (lower-cased) words that can start an inline construct
 * (escape, tag, link, emphasis, code span, strikethrough, hard break,
 * entity, autolink) or end marked's plain-text rule early.
 */
const INLINE_SYNTAX_CHARS = /[\\<>[\]!`*_~&@\n\r\t]/;
const INLINE_SYNTAX_WORDS = ["www.", "http", "ftp", "mailto", "xmpp"];

function mayHoldInlineSyntax(text: string): boolean {
  if (INLINE_SYNTAX_CHARS.test(text)) return true;
  const lower = text.toLowerCase();
  return INLINE_SYNTAX_WORDS.some((word) => lower.includes(word));
}

/**
 * Text without inline syntax ({@linkcode mayHoldInlineSyntax}) lexes to one text token equal
 * to its source; saying so directly skips marked's plain-text expression,
 * which costs about a microsecond per character of a long paragraph.
 */
class PlainTextLexer extends Lexer {
  override inlineTokens(src: string, tokens: Token[] = []): Token[] {
    if (src === "" || this.state.inRawBlock || mayHoldInlineSyntax(src)) {
      return super.inlineTokens(src, tokens);
    }
    tokens.push({ type: "text", raw: src, text: src, escaped: false });
    return tokens;
  }
}

function lexer(links: Links): Lexer {
  const instance = new PlainTextLexer({
    ...getDefaults(),
    tokenizer: new StrictStrikethroughTokenizer(),
  });
  Object.assign(instance.tokens.links, links);
  return instance;
}

/** Lexes a document, resolving references from `links` and the definitions in `source`. */
export function lexBlocks(source: string, links: Links): Token[] {
  return lexer(links).lex(source);
}

/** A link reference definition: its label and target. */
export type Definition = [label: string, target: Links[string]];

/** The link reference definitions in `tokens` (nested ones included), in order. */
export function definitions(tokens: readonly Token[]): Definition[] {
  const found: Definition[] = [];
  const walk = (list: readonly Token[]) => {
    for (const token of list) {
      const marked = token as MarkedToken;
      if (marked.type === "def") {
        found.push([marked.tag, { href: marked.href, title: marked.title }]);
      }
      if (marked.type === "list") marked.items.forEach((item) => walk(item.tokens));
      else if (marked.type === "blockquote") walk(marked.tokens);
    }
  };
  walk(tokens);
  return found;
}

/** Lexes inline markdown (one paragraph's text), resolving references from `links`. */
export function lexInline(source: string, links: Links): Token[] {
  return lexer(links).inlineTokens(source);
}
