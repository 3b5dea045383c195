/**
 * The `marked` lexer as panto configures it: GFM, and strikethrough only
 * with `~~`. Link definitions are shared per document.
 *
 * @module
 */
import { getDefaults, Lexer, Tokenizer } from "marked";
import type { Links, Token, Tokens } from "marked";

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

function lexer(links: Links): Lexer {
  const instance = new Lexer({ ...getDefaults(), tokenizer: new StrictStrikethroughTokenizer() });
  Object.assign(instance.tokens.links, links);
  return instance;
}

/** Lexes a document; definitions found are added to `links`. */
export function lexBlocks(source: string, links: Links): Token[] {
  const tokens = lexer(links).lex(source);
  Object.assign(links, tokens.links);
  return tokens;
}

/** Lexes inline markdown (one paragraph's text), resolving references from `links`. */
export function lexInline(source: string, links: Links): Token[] {
  return lexer(links).inlineTokens(source);
}
