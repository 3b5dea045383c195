/**
 * An open list: items before the last one are settled. Numbering and
 * spacing come from the list as first seen; a tail that changes them (the
 * list turning loose) makes the caller re-lex the whole list once.
 *
 * @module
 */
import type { Token, Tokens } from "marked";
import { listItemRows } from "./markdown_blocks.ts";
import type { ListShape } from "./markdown_blocks.ts";
import { lexBlocks } from "./markdown_lex.ts";
import { hasContent } from "./markdown_open_block.ts";
import type { BlockContext, BlockUpdate, OpenBlock } from "./markdown_open_block.ts";

/** An item ending in a blank line makes its list loose once another item follows. */
const ENDS_WITH_BLANK_LINE = /\n[ \t]*\n[ \t]*$/;

/**
 * An open list block. The tail is lexed after the last settled item (kept
 * as a prefix, ending in a blank line when the list is loose), so marked
 * sees the tail items with the list's real spacing.
 */
export class OpenList implements OpenBlock {
  #settledOffset: number;
  #settledRows = 0;
  #settledItems = 0;
  #shape: ListShape | null = null;
  /** The last settled item's source, lexed before the tail. */
  #prefix = "";
  readonly #context: BlockContext;

  private constructor(start: number, context: BlockContext) {
    this.#settledOffset = start;
    this.#context = context;
  }

  /** An open block for a list token, or null. */
  static from(token: Token, start: number, context: BlockContext): OpenList | null {
    return token.type === "list" ? new OpenList(start, context) : null;
  }

  get settledOffset(): number {
    return this.#settledOffset;
  }

  update(tail: string): BlockUpdate | null {
    const { width, style } = this.#context;
    const prefix = this.#prefix;
    const tokens = lexBlocks(prefix + tail, style.links);
    const list = tokens[0] as Tokens.List | undefined;
    if (list?.type !== "list" || (prefix !== "" && list.items[0]?.raw !== prefix)) return null;
    const shape = this.#shapeFor(list);
    if (shape === null) return null;
    const items = prefix === "" ? list.items : list.items.slice(1);
    const from = this.#settledRows;
    const firstIndex = this.#settledItems;
    const rows: string[] = [];
    let offset = 0;
    let settling = true;
    items.forEach((item, i) => {
      const itemRows = listItemRows(shape, item, firstIndex + i, width, style, 0);
      rows.push(...itemRows);
      settling &&= i < items.length - 1 && tail.startsWith(item.raw, offset);
      if (!settling) return;
      offset += item.raw.length;
      this.#settledRows += itemRows.length;
      this.#settledItems++;
      this.#prefix = shape.loose && !ENDS_WITH_BLANK_LINE.test(item.raw)
        ? item.raw + "\n"
        : item.raw;
    });
    const update: BlockUpdate = { from, rows };
    const after = tokens.slice(1);
    const end = this.#settledOffset + list.raw.length - prefix.length;
    if (hasContent(after)) update.ended = { end, after };
    this.#settledOffset += offset;
    return update;
  }

  /** The shape to render `list` with, or null when it differs from the settled items'. */
  #shapeFor(list: Tokens.List): ListShape | null {
    const shape = this.#shape;
    if (shape === null || this.#settledItems === 0) {
      this.#shape = { ordered: list.ordered, start: list.start, loose: list.loose };
      return this.#shape;
    }
    return list.ordered === shape.ordered && list.loose === shape.loose ? shape : null;
  }
}
