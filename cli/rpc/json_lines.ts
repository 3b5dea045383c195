/**
 * Reading JSON lines: records split on LF only (a JSON string may hold
 * U+2028 and U+2029, which generic line readers also split on), an optional
 * CR before it dropped, blank lines skipped.
 *
 * @module
 */
import { joinBytes } from "@panto/lib/fs";

/** Most bytes of one input line: a prompt with a few 10 MiB images (base64) fits. */
export const MAX_LINE_BYTES: number = 64 * 1024 * 1024;

/** One record read: its text, or the size of a line too long to keep. */
export type InputLine =
  | { kind: "line"; text: string }
  | { kind: "too_long"; bytes: number };

const LF = 0x0a;

/**
 * The lines of `input`. A line longer than `maxBytes` is not kept (memory
 * stays bounded): it is reported as `too_long` with its size once its end is
 * read, and reading goes on with the next line. A last line without a
 * newline still counts.
 *
 * @param input The byte stream (standard input).
 * @param maxBytes The longest line kept.
 * @returns The lines, in order.
 */
export async function* readJsonLines(
  input: ReadableStream<Uint8Array>,
  maxBytes: number = MAX_LINE_BYTES,
): AsyncGenerator<InputLine> {
  const decoder = new TextDecoder();
  // Pieces of the current line, joined once when it ends (not per chunk: long lines stay linear).
  let pieces: Uint8Array[] = [];
  let size = 0;
  const finish = (): InputLine | undefined => {
    const line: InputLine | undefined = size > maxBytes
      ? { kind: "too_long", bytes: size }
      : textLine(decoder.decode(joinBytes(pieces)));
    pieces = [];
    size = 0;
    return line;
  };
  for await (const chunk of input) {
    let start = 0;
    for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, start)) {
      add(chunk.subarray(start, end));
      const line = finish();
      if (line) yield line;
      start = end + 1;
    }
    add(chunk.subarray(start));
  }
  const last = finish();
  if (last) yield last;

  function add(piece: Uint8Array): void {
    size += piece.length;
    // Past the limit only the count goes on.
    if (size <= maxBytes) pieces.push(piece);
    else pieces = [];
  }
}

function textLine(text: string): InputLine | undefined {
  const trimmed = text.endsWith("\r") ? text.slice(0, -1) : text;
  return trimmed.trim() === "" ? undefined : { kind: "line", text: trimmed };
}
