/** Most lines a tool returns to the model by default. */
export const DEFAULT_MAX_LINES = 2000;

/** Most bytes (UTF-8) a tool returns to the model by default. */
export const DEFAULT_MAX_BYTES = 50 * 1024;

/** Options for {@linkcode truncateText}. */
export interface TruncateOptions {
  /** Most lines kept (default {@linkcode DEFAULT_MAX_LINES}). */
  maxLines?: number;
  /** Most UTF-8 bytes kept (default {@linkcode DEFAULT_MAX_BYTES}). */
  maxBytes?: number;
  /** Keep the beginning (`head`, default) or the end (`tail`, e.g. command output). */
  keep?: "head" | "tail";
}

/** The kept part of a text and what was left out. */
export interface TruncatedText {
  /** The kept lines, joined with `\n`. */
  text: string;
  /** Whether anything was left out. */
  truncated: boolean;
  /** Lines in the whole text. */
  totalLines: number;
  /** 1-based number of the first kept line. */
  firstLine: number;
  /** 1-based number of the last kept line (`firstLine - 1` when none is kept). */
  lastLine: number;
  /** Whether a single line longer than the byte limit was cut to fit. */
  partialLine: boolean;
}

const encoder = new TextEncoder();

/**
 * Keeps whole lines from the head or the tail of a text within a line and a
 * byte budget. A single line longer than the whole byte budget is cut (at a
 * character boundary) rather than dropped, so something is always shown.
 *
 * @param text The text (a trailing newline does not count as an extra line).
 * @param options Limits and which end to keep.
 * @returns The kept text and line numbers for the note to the model.
 *
 * @example
 * ```ts
 * import { truncateText } from "./truncate.ts";
 * const result = truncateText("a\nb\nc\nd", { maxLines: 2, keep: "tail" });
 * console.assert(result.text === "c\nd" && result.firstLine === 3 && result.truncated);
 * ```
 */
export function truncateText(text: string, options: TruncateOptions = {}): TruncatedText {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const lines = splitLines(text);
  const tail = options.keep === "tail";
  const ordered = tail ? lines.toReversed() : lines;
  const kept: string[] = [];
  let bytes = 0;
  let partialLine = false;
  for (const line of ordered) {
    if (kept.length >= maxLines) break;
    const size = encoder.encode(line).length + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      if (kept.length === 0) {
        kept.push(cutToBytes(line, maxBytes, tail));
        partialLine = true;
      }
      break;
    }
    kept.push(line);
    bytes += size;
  }
  const count = kept.length;
  const firstLine = tail ? lines.length - count + 1 : 1;
  return {
    text: (tail ? kept.reverse() : kept).join("\n"),
    truncated: count < lines.length || partialLine,
    totalLines: lines.length,
    firstLine,
    lastLine: firstLine + count - 1,
    partialLine,
  };
}

/**
 * Shortens one line to at most `maxChars` characters (UTF-16 code units),
 * marking the cut; a surrogate pair is never split.
 *
 * @param line The line.
 * @param maxChars The most code units kept.
 * @returns The line, or its start followed by `… [line truncated]`.
 *
 * @example
 * ```ts
 * import { truncateLine } from "./truncate.ts";
 * console.assert(truncateLine("abcdef", 3) === "abc… [line truncated]");
 * ```
 */
export function truncateLine(line: string, maxChars: number): string {
  if (line.length <= maxChars) return line;
  const splitsPair = isHighSurrogate(line.charCodeAt(maxChars - 1));
  return `${line.slice(0, splitsPair ? maxChars - 1 : maxChars)}… [line truncated]`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The note that says an output was cut, as bash and MCP tools give it:
 * what is shown, how much there was, and what to do about it.
 *
 * @param shown What is shown, such as `lines 1-2000` or `the end of line 9`.
 * @param totalLines Lines in the whole output.
 * @param totalBytes UTF-8 bytes in the whole output.
 * @param advice How to get at the rest.
 * @returns The note, in brackets.
 *
 * @example
 * ```ts
 * import { truncationNotice } from "./truncate.ts";
 * const note = truncationNotice("lines 1-2", 9, 2048, "Ask for less.");
 * console.assert(note === "[Output truncated: showing lines 1-2 of 9 (2.0 KB in all). Ask for less.]");
 * ```
 */
export function truncationNotice(
  shown: string,
  totalLines: number,
  totalBytes: number,
  advice: string,
): string {
  return `[Output truncated: showing ${shown} of ${totalLines} (${
    formatBytes(totalBytes)
  } in all). ${advice}]`;
}

/**
 * A byte count for notes: `512 B`, `50.0 KB`, `3.2 MB`, `2.0 GB`.
 *
 * @param bytes The count.
 * @returns The human-readable size.
 *
 * @example
 * ```ts
 * import { formatBytes } from "./truncate.ts";
 * console.assert(formatBytes(51200) === "50.0 KB");
 * ```
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The first (or last) characters of `line` that fit in `maxBytes` of UTF-8. */
function cutToBytes(line: string, maxBytes: number, fromEnd: boolean): string {
  // No more code units than bytes fit, so only that end is split into characters (a 50 MB
  // line took seconds). A pair cut at the far end of the window is never reached.
  const window = fromEnd ? line.slice(-maxBytes - 1) : line.slice(0, maxBytes + 1);
  const chars = Array.from(window);
  const picked: string[] = [];
  let bytes = 0;
  for (let i = 0; i < chars.length; i++) {
    const char = chars[fromEnd ? chars.length - 1 - i : i]!;
    bytes += encoder.encode(char).length;
    if (bytes > maxBytes) break;
    picked.push(char);
  }
  return (fromEnd ? picked.reverse() : picked).join("");
}
