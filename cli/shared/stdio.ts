import { formatByteSize } from "../config/byte_size.ts";
import { UsageError } from "./errors.ts";

import { escapeTerminalText, sanitizeTerminalText } from "@panto/tui/sanitize";

const encoder = new TextEncoder();

function writeAll(file: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
}

/**
 * Writes all of `text` to standard output (writes may be partial). On a
 * terminal, escape sequences and controls in it are stripped (the text is
 * the model's or a stored session's); piped, it goes out exactly as given.
 *
 * @param text The text.
 */
export function writeStdout(text: string): void {
  writeAll(Deno.stdout, Deno.stdout.isTerminal() ? sanitizeTerminalText(text) : text);
}

/**
 * Writes all of `text` to standard error, control characters shown as
 * visible escapes (`\x1b`): messages there quote provider error bodies.
 *
 * @param text The text.
 */
export function writeStderr(text: string): void {
  writeAll(Deno.stderr, escapeTerminalText(text));
}

/** Largest prompt accepted on standard input (10 MiB). */
export const MAX_STDIN_PROMPT_BYTES: number = 10 * 1024 * 1024;

/**
 * Reads all of standard input as text, stopping with an error once it
 * passes `maxBytes` (a prompt that large is a mistake, such as piping a
 * binary or an endless stream).
 *
 * @param maxBytes The cap.
 * @param input The stream (default: standard input).
 * @returns The text.
 * @throws {UsageError} When the input is larger than the cap, naming both.
 */
export async function readStdinText(
  maxBytes: number = MAX_STDIN_PROMPT_BYTES,
  input: ReadableStream<Uint8Array> = Deno.stdin.readable,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let total = 0;
  for await (const chunk of input) {
    total += chunk.length;
    if (total > maxBytes) {
      throw new UsageError(
        `The prompt on stdin is larger than ${formatByteSize(maxBytes)} (panto stopped reading at ${
          formatByteSize(total)
        }): pass a shorter prompt, or name large files with @path so the model reads what it needs`,
      );
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * Reads one line typed on the terminal (before the terminal UI starts, in
 * the terminal's normal line mode).
 *
 * @returns The line without its newline; `""` at the end of input.
 */
export async function readTerminalLine(): Promise<string> {
  const bytes: number[] = [];
  const buffer = new Uint8Array(1);
  while (bytes.length < 4096) {
    const read = await Deno.stdin.read(buffer);
    if (read === null || buffer[0] === 0x0a) break;
    bytes.push(buffer[0]!);
  }
  return new TextDecoder().decode(new Uint8Array(bytes)).replace(/\r$/, "");
}
