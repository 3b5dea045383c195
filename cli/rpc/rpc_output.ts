/**
 * Where RPC mode writes: one JSON object per line. Its reader may go away
 * (the client exits): writing then stops, once, calling `onClosed`, instead
 * of failing with a broken pipe.
 */
export class RpcOutput {
  #closed = false;
  readonly #write: (text: string) => void;
  readonly #onClosed: () => void;

  /**
   * @param write Writes all of a text (standard output).
   * @param onClosed Called once when the reader has closed the output.
   */
  constructor(write: (text: string) => void, onClosed: () => void) {
    this.#write = write;
    this.#onClosed = onClosed;
  }

  /** True once the reader has closed the output. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Writes `record` as one line of JSON. JSON escapes line feeds inside
   * strings; U+2028 and U+2029 are escaped too, for clients whose line
   * readers split on them.
   *
   * @param record A response or an event.
   */
  send(record: object): void {
    if (this.#closed) return;
    try {
      this.#write(JSON.stringify(record).replace(/[\u2028\u2029]/g, escapeChar) + "\n");
    } catch (error) {
      if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
      this.#closed = true;
      this.#onClosed();
    }
  }
}

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16)}`;
}
