/**
 * The escape sequences that draw an image in the terminal: the Kitty
 * graphics protocol (APC `G`, base64 sent in 4096-byte chunks) and iTerm2's
 * inline images (OSC 1337 `File=`), optionally wrapped for tmux's
 * passthrough, and the "image row" the {@linkcode Image} component renders
 * and the engine recognises.
 *
 * An image row is the last of the rows an image covers: it saves the cursor,
 * moves it up to the image's first row, draws the image there (the terminal
 * scales it into the box of columns × rows) and restores the cursor, so
 * wherever a terminal leaves its cursor after an image, the engine's count
 * of rows stays exact. The other rows are blank lines.
 *
 * @module
 */

/** Which inline image protocol a terminal speaks. */
export type ImageProtocol = "kitty" | "iterm2";

/** Kitty's limit for the base64 payload of one escape sequence. */
export const KITTY_CHUNK_SIZE = 4096;

/** Options for {@linkcode encodeKittyImage}. */
export interface KittyImageOptions {
  /** The image id (1 to 2³²−1): a later delete by this id removes the placement. */
  id: number;
  /** Columns the image is scaled into. */
  columns: number;
  /** Rows the image is scaled into. */
  rows: number;
}

/**
 * The Kitty graphics sequences that transmit and display a PNG at the
 * cursor (`a=T,f=100`), scaled into `columns` × `rows` cells, without moving
 * the cursor (`C=1`) and without any answer (`q=2`). Base64 longer than
 * {@linkcode KITTY_CHUNK_SIZE} is split into chunks, all but the last with
 * `m=1`; only the first carries the keys.
 *
 * @example
 * ```ts
 * import { encodeKittyImage } from "@panto/tui";
 * const sequence = encodeKittyImage("iVBORw0KGgo=", { id: 7, columns: 4, rows: 2 });
 * console.assert(sequence === "\x1b_Ga=T,f=100,q=2,C=1,i=7,c=4,r=2;iVBORw0KGgo=\x1b\\");
 * ```
 *
 * @param base64 The PNG file, base64-encoded.
 * @param options The image id and the box it fills.
 * @returns The escape sequences.
 */
export function encodeKittyImage(base64: string, options: KittyImageOptions): string {
  const keys = `a=T,f=100,q=2,C=1,i=${options.id},c=${options.columns},r=${options.rows}`;
  if (base64.length <= KITTY_CHUNK_SIZE) return `\x1b_G${keys};${base64}\x1b\\`;
  let out = "";
  for (let at = 0; at < base64.length; at += KITTY_CHUNK_SIZE) {
    const more = at + KITTY_CHUNK_SIZE < base64.length ? 1 : 0;
    const head = at === 0 ? `${keys},m=${more}` : `m=${more}`;
    out += `\x1b_G${head};${base64.slice(at, at + KITTY_CHUNK_SIZE)}\x1b\\`;
  }
  return out;
}

/**
 * The Kitty sequence that deletes image `id`: its placements and its data
 * (`d=I`), without an answer.
 *
 * @example
 * ```ts
 * import { deleteKittyImage } from "@panto/tui";
 * console.assert(deleteKittyImage(7) === "\x1b_Ga=d,d=I,i=7,q=2\x1b\\");
 * ```
 *
 * @param id The image id given to {@linkcode encodeKittyImage}.
 * @returns The escape sequence.
 */
export function deleteKittyImage(id: number): string {
  return `\x1b_Ga=d,d=I,i=${id},q=2\x1b\\`;
}

/** Options for {@linkcode encodeIterm2Image}. */
export interface Iterm2ImageOptions {
  /** Columns the image is scaled into. */
  columns: number;
  /** Rows the image is scaled into. */
  rows: number;
  /** The file name iTerm2 shows for the image (sent base64-encoded). */
  name?: string;
}

/**
 * iTerm2's inline image sequence (OSC 1337 `File=`, BEL-terminated) for an
 * image file of any format iTerm2 reads, scaled into `columns` × `rows`
 * cells keeping its aspect ratio, asking the terminal not to move the cursor
 * (`doNotMoveCursor=1`: WezTerm, mintty; others ignore it).
 *
 * @example
 * ```ts
 * import { encodeIterm2Image } from "@panto/tui";
 * const sequence = encodeIterm2Image("R0lGODlh", { columns: 4, rows: 2, name: "a.gif" });
 * console.assert(
 *   sequence ===
 *     "\x1b]1337;File=inline=1;size=6;width=4;height=2;doNotMoveCursor=1;name=YS5naWY=:R0lGODlh\x07",
 * );
 * ```
 *
 * @param base64 The image file, base64-encoded.
 * @param options The box it fills and its name.
 * @returns The escape sequence.
 */
export function encodeIterm2Image(base64: string, options: Iterm2ImageOptions): string {
  const keys = [
    "inline=1",
    `size=${decodedLength(base64)}`,
    `width=${options.columns}`,
    `height=${options.rows}`,
    "doNotMoveCursor=1",
  ];
  if (options.name !== undefined) keys.push(`name=${toBase64(options.name)}`);
  return `\x1b]1337;File=${keys.join(";")}:${base64}\x07`;
}

/**
 * Wraps escape sequences in tmux's passthrough (`DCS tmux; … ST`, every ESC
 * doubled), which tmux hands to the outer terminal when the pane's
 * `allow-passthrough` option is on, and drops otherwise. Kitty chunks are
 * wrapped one by one.
 *
 * @example
 * ```ts
 * import { wrapForTmux } from "@panto/tui";
 * console.assert(wrapForTmux("\x1b_Ga=d\x1b\\") === "\x1bPtmux;\x1b\x1b_Ga=d\x1b\x1b\\\x1b\\");
 * ```
 *
 * @param sequences One or more complete escape sequences.
 * @returns The wrapped sequences.
 */
export function wrapForTmux(sequences: string): string {
  return splitSequences(sequences)
    .map((sequence) => `\x1bPtmux;${sequence.replaceAll("\x1b", "\x1b\x1b")}\x1b\\`)
    .join("");
}

/** The complete escape sequences of `text` (Kitty chunks end with ST, iTerm2's with BEL). */
function splitSequences(text: string): string[] {
  // deno-lint-ignore no-control-regex
  return text.split(/(?<=\x1b\\|\x07)(?=\x1b)/);
}

/** What the engine needs to know of an image row. */
export interface ImageRow {
  /** Rows above the image row the image covers (its height less one). */
  above: number;
  /** The Kitty image id, or null for an iTerm2 image. */
  kittyId: number | null;
  /** Whether the sequences are wrapped for tmux's passthrough. */
  tmux: boolean;
}

/** Options for {@linkcode imageRow}. */
export interface ImageRowOptions {
  /** Rows the image covers (at least 1). */
  rows: number;
  /** Spaces before the image. */
  indent?: number;
}

/**
 * The last line of an image's rows: the cursor saved (DECSC), up to the
 * image's first row, the sequences, the cursor restored (DECRC).
 *
 * @example
 * ```ts
 * import { encodeKittyImage, imageRow } from "@panto/tui";
 * const sequence = encodeKittyImage("iVBORw0KGgo=", { id: 7, columns: 4, rows: 3 });
 * const row = imageRow(sequence, { rows: 3 });
 * console.assert(row === `\x1b7\x1b[2A${sequence}\x1b8`);
 * ```
 *
 * @param sequences The image's escape sequences.
 * @param options Its height and indent.
 * @returns The line.
 */
export function imageRow(sequences: string, options: ImageRowOptions): string {
  const above = Math.max(0, options.rows - 1);
  const up = above > 0 ? `\x1b[${above}A` : "";
  return `${" ".repeat(options.indent ?? 0)}\x1b7${up}${sequences}\x1b8`;
}

const BASE64 = "[A-Za-z0-9+/=]*";
const KITTY = `\\x1b_G[\\w=,-]*(?:;${BASE64})?\\x1b\\\\`;
const ITERM2 = `\\x1b\\]1337;File=[\\w=;.+/-]*:${BASE64}\\x07`;
const TMUX_KITTY = `\\x1bPtmux;\\x1b\\x1b_G[\\w=,-]*(?:;${BASE64})?\\x1b\\x1b\\\\\\x1b\\\\`;
const TMUX_ITERM2 = `\\x1bPtmux;\\x1b\\x1b\\]1337;File=[\\w=;.+/-]*:${BASE64}\\x07\\x1b\\\\`;
/** A whole image row: nothing but the moves and well-formed image sequences. */
const IMAGE_ROW = new RegExp(
  `^ *\\x1b7(?:\\x1b\\[(\\d+)A)?(?:(?:${KITTY})+|${ITERM2}|(?:${TMUX_KITTY})+|${TMUX_ITERM2})\\x1b8$`,
);
// deno-lint-ignore no-control-regex
const KITTY_ID = /^ *\x1b7(?:\x1b\[\d+A)?\x1bP?(?:tmux;\x1b)?\x1b?_G[\w=,-]*?\bi=(\d+)/;

/**
 * Parses an image row made by {@linkcode imageRow}; `null` for any other
 * line (a line that merely contains image sequences is not one).
 *
 * @example
 * ```ts
 * import { encodeKittyImage, imageRow, parseImageRow } from "@panto/tui";
 * const row = imageRow(encodeKittyImage("iVBORw0KGgo=", { id: 7, columns: 4, rows: 3 }), { rows: 3 });
 * console.assert(parseImageRow(row)?.kittyId === 7 && parseImageRow(row)?.above === 2);
 * console.assert(parseImageRow("hello") === null);
 * ```
 *
 * @param line A rendered line.
 * @returns What the row covers, or null.
 */
export function parseImageRow(line: string): ImageRow | null {
  // Cheap rejections first: the engine asks this of every changed line.
  const start = line.search(/[^ ]/);
  if (start === -1 || !line.startsWith("\x1b7", start) || !line.endsWith("\x1b8")) return null;
  const match = IMAGE_ROW.exec(line);
  if (match === null) return null;
  const id = KITTY_ID.exec(line)?.[1];
  return {
    above: Number(match[1] ?? 0),
    kittyId: id === undefined ? null : Number(id),
    tmux: line.includes("\x1bPtmux;"),
  };
}

/**
 * The sequence that removes what an image row drew, for the engine to send
 * before the row is overwritten or erased: Kitty images stay on screen
 * through text written over them. "" for iTerm2, whose images are cells
 * that text replaces.
 *
 * @example
 * ```ts
 * import { imageRemoval } from "@panto/tui";
 * console.assert(imageRemoval({ above: 1, kittyId: 7, tmux: false }) === "\x1b_Ga=d,d=I,i=7,q=2\x1b\\");
 * console.assert(imageRemoval({ above: 1, kittyId: null, tmux: false }) === "");
 * ```
 *
 * @param row The parsed row.
 * @returns The escape sequence, or "".
 */
export function imageRemoval(row: ImageRow): string {
  if (row.kittyId === null) return "";
  const removal = deleteKittyImage(row.kittyId);
  return row.tmux ? wrapForTmux(removal) : removal;
}

/** Bytes encoded by `base64` (its length less padding). */
function decodedLength(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor(base64.length * 3 / 4) - padding;
}

function toBase64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}
