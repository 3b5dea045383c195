/** Bytes read from the file at a time. */
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** One line as read by {@linkcode FileLines.next}. */
export interface ReadLine {
  /** The line's start (at most `keepBytes` of it), decoded leniently, without the newline. */
  text: string;
  /** False when the line ran past `scanBytes` and reading stopped inside it. */
  complete: boolean;
}

/**
 * Reads a file line by line (`\n`-separated, a final newline ending the last
 * line) holding only one chunk and one bounded line in memory, so that a
 * huge file costs no more than a small one.
 *
 * @example
 * ```ts
 * import { FileLines } from "./file_lines.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "one\ntwo\nthree\n");
 * const file = await Deno.open(path);
 * const lines = new FileLines(file);
 * await lines.skip(1);
 * console.assert((await lines.next(100, 100))?.text === "two");
 * console.assert(await lines.countRest(100) === 1);
 * file.close();
 * await Deno.remove(path);
 * ```
 */
export class FileLines {
  #file: Deno.FsFile;
  #buffer = new Uint8Array(CHUNK_BYTES);
  #start = 0;
  #end = 0;
  #eof = false;

  /**
   * Reads from the file's current position (the caller closes it).
   *
   * @param file An open file.
   */
  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /**
   * Skips lines.
   *
   * @param count How many.
   * @returns How many were skipped: fewer when the file ended first.
   */
  async skip(count: number): Promise<number> {
    let skipped = 0;
    while (skipped < count && await this.#line(() => true)) skipped++;
    return skipped;
  }

  /**
   * The next line.
   *
   * @param keepBytes The most bytes of it kept (a character cut at the end decodes as U+FFFD).
   * @param scanBytes The most bytes of it read before giving up on its end.
   * @returns The line, or `undefined` at the end of the file.
   */
  async next(keepBytes: number, scanBytes: number): Promise<ReadLine | undefined> {
    // Decoded piece by piece: a character split between chunks is held until its end comes.
    const decoder = new TextDecoder();
    let text = "";
    let seen = 0;
    let kept = 0;
    const found = await this.#line((piece) => {
      const keep = piece.subarray(0, Math.max(0, keepBytes - kept));
      if (keep.length) text += decoder.decode(keep, { stream: true });
      kept += keep.length;
      seen += piece.length;
      return seen <= scanBytes;
    });
    if (found === false) return undefined;
    return { text: text + decoder.decode(), complete: found === true };
  }

  /**
   * Counts the lines left, reading at most `scanBytes`.
   *
   * @param scanBytes The most bytes read.
   * @returns The count, or `undefined` when the file goes on past `scanBytes`.
   */
  async countRest(scanBytes: number): Promise<number | undefined> {
    let scanned = 0;
    let count = 0;
    while (true) {
      const found = await this.#line((piece) => (scanned += piece.length + 1) <= scanBytes);
      if (found === false) return count;
      if (found === "stopped") return undefined;
      count++;
    }
  }

  /**
   * Moves past the next newline (or to the end), handing each piece of the
   * line to `take`, which returns false to stop inside the line.
   * Returns false at the end of the file, "stopped" when `take` stopped.
   */
  async #line(take: (piece: Uint8Array) => boolean): Promise<boolean | "stopped"> {
    if (!(await this.#fill())) return false;
    while (await this.#fill()) {
      const newline = this.#buffer.subarray(this.#start, this.#end).indexOf(NEWLINE);
      const stop = newline === -1 ? this.#end : this.#start + newline;
      const more = take(this.#buffer.subarray(this.#start, stop));
      this.#start = newline === -1 ? this.#end : stop + 1;
      if (!more) return "stopped";
      if (newline !== -1) return true;
    }
    return true;
  }

  /** Whether unread bytes are buffered, reading the next chunk when needed. */
  async #fill(): Promise<boolean> {
    if (this.#start < this.#end) return true;
    if (this.#eof) return false;
    const read = await this.#file.read(this.#buffer);
    if (read === null || read === 0) {
      this.#eof = true;
      return false;
    }
    this.#start = 0;
    this.#end = read;
    return true;
  }
}
