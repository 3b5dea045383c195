/**
 * One over-long ACP message must not end the connection: the SDK's line
 * reader fails the whole input stream on a line over its limit (32 MiB),
 * which closed every session and ended `panto acp` with exit 0. The guard
 * sits in front of it: lines within the limit pass whole, a longer one is
 * dropped as it streams past (never held), and what it was (its id, its
 * method) is told to a callback that answers it.
 *
 * @module
 */
import { joinBytes } from "@panto/lib/fs";

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The longest top-level value kept (ids are short: the SDK refuses ids over 1024 characters). */
const MAX_FIELD_BYTES = 1024;

/** What could be told of a message dropped for its size. */
export interface OversizedMessage {
  /** Its size, without the line ending. */
  bytes: number;
  /** Its JSON-RPC id (a request's, or the response's), when it had a valid one. */
  id?: string | number;
  /** Its method: a request or a notification. */
  method?: string;
  /** Whether it was a response (`result` or `error`, no `method`). */
  response: boolean;
}

/**
 * Passes newline-delimited messages on, each whole line as one chunk, and
 * drops any line over `maxBytes`: `onOversized` is told of it and may
 * return a line to pass on in its place (e.g. an error response).
 *
 * @example
 * ```ts
 * import { MessageSizeGuard } from "./message_size_guard.ts";
 * const seen: number[] = [];
 * const guard = new MessageSizeGuard(8, (message) => void seen.push(message.bytes));
 * const input = ReadableStream.from([new TextEncoder().encode('{"id":1,"x":"long"}\n{}\n')]);
 * const out = await new Response(input.pipeThrough(guard)).text();
 * console.assert(out === "{}\n" && seen[0] === 19);
 * ```
 */
export class MessageSizeGuard extends TransformStream<Uint8Array, Uint8Array> {
  /**
   * @param maxBytes The longest line passed on, without its line ending.
   * @param onOversized Told of each line dropped; returns a line (with its
   *   newline) to pass on instead, or nothing.
   */
  constructor(
    maxBytes: number,
    onOversized: (message: OversizedMessage) => Uint8Array | undefined,
  ) {
    /** The start of the current line, while it is within the limit. */
    let pending: Uint8Array[] = [];
    let length = 0;
    /** The current line, once over the limit: read for its fields as it passes. */
    let dropping: TopLevelFields | undefined;
    const drop = (controller: TransformStreamDefaultController<Uint8Array>) => {
      const replacement = onOversized(dropping!.describe(length));
      if (replacement) controller.enqueue(replacement);
      dropping = undefined;
    };
    super({
      transform(chunk, controller) {
        let start = 0;
        while (start < chunk.length) {
          const newline = chunk.indexOf(NEWLINE, start);
          const end = newline === -1 ? chunk.length : newline;
          const piece = chunk.subarray(start, end);
          if (dropping === undefined && length + piece.length > maxBytes) {
            dropping = new TopLevelFields();
            for (const part of pending) dropping.feed(part);
            pending = [];
          }
          length += piece.length;
          if (dropping) dropping.feed(piece);
          else if (newline === -1) pending.push(piece.slice());
          if (newline === -1) break;
          if (dropping) drop(controller);
          else if (pending.length === 0) controller.enqueue(chunk.subarray(start, newline + 1));
          else controller.enqueue(joinBytes([...pending, chunk.subarray(start, newline + 1)]));
          pending = [];
          length = 0;
          start = newline + 1;
        }
      },
      flush(controller) {
        if (dropping) drop(controller);
        else if (pending.length) controller.enqueue(joinBytes(pending));
      },
    });
  }
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * Reads the top-level keys of a JSON object, and the values of `id` and
 * `method`, as its bytes stream past, keeping nothing else: an id may come
 * after megabytes of params.
 */
class TopLevelFields {
  #depth = 0;
  #object = false;
  #inString = false;
  #escaped = false;
  /** What comes next at the top level. */
  #expect: "key" | "colon" | "value" | "comma" = "key";
  /** The key last read at the top level. */
  #key = "";
  /** Whether the key, or a top-level value (a string or a bare scalar), is being read. */
  #reading: "key" | "string" | "scalar" | undefined;
  /** Its bytes, when it is kept (a key, or the value of `id` or `method`); `undefined` past the cap. */
  #kept: number[] | undefined;
  readonly #keys = new Set<string>();
  readonly #values = new Map<string, unknown>();

  feed(bytes: Uint8Array): void {
    for (const byte of bytes) this.#read(byte);
  }

  /** What was read, for a message of `bytes` bytes. */
  describe(bytes: number): OversizedMessage {
    if (this.#reading === "scalar") this.#endValue();
    const id = this.#values.get("id");
    const method = this.#values.get("method");
    const message: OversizedMessage = {
      bytes,
      response: !this.#keys.has("method") && (this.#keys.has("result") || this.#keys.has("error")),
    };
    if (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) message.id = id;
    if (typeof method === "string") message.method = method;
    return message;
  }

  #read(byte: number): void {
    if (this.#inString) {
      this.#keep(byte);
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) {
        this.#inString = false;
        if (this.#reading === "key") this.#endKey();
        else if (this.#reading === "string") this.#endValue();
      }
      return;
    }
    if (this.#reading === "scalar") {
      if (byte !== COMMA && byte !== CLOSE_BRACE && !isSpace(byte)) return this.#keep(byte);
      this.#endValue();
    }
    const top = this.#object && this.#depth === 1;
    switch (byte) {
      case QUOTE:
        this.#inString = true;
        if (top && this.#expect === "key") this.#start("key", true);
        else if (top && this.#expect === "value") this.#start("string", this.#wanted());
        this.#keep(byte);
        return;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (this.#depth === 0) this.#object = byte === OPEN_BRACE;
        if (top && this.#expect === "value") this.#expect = "comma";
        this.#depth++;
        return;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        this.#depth--;
        return;
      case COLON:
        if (top && this.#expect === "colon") this.#expect = "value";
        return;
      case COMMA:
        if (top) this.#expect = "key";
        return;
      default:
        if (top && this.#expect === "value" && !isSpace(byte)) {
          this.#start("scalar", this.#wanted());
          this.#keep(byte);
        }
    }
  }

  #wanted(): boolean {
    return this.#key === "id" || this.#key === "method";
  }

  #start(reading: "key" | "string" | "scalar", keep: boolean): void {
    this.#reading = reading;
    this.#kept = keep ? [] : undefined;
  }

  #keep(byte: number): void {
    if (this.#kept === undefined) return;
    if (this.#kept.length >= MAX_FIELD_BYTES) this.#kept = undefined;
    else this.#kept.push(byte);
  }

  #endKey(): void {
    this.#key = String(this.#parse() ?? "");
    if (this.#keys.size < 64) this.#keys.add(this.#key);
    this.#reading = undefined;
    this.#kept = undefined;
    this.#expect = "colon";
  }

  #endValue(): void {
    if (this.#kept !== undefined) this.#values.set(this.#key, this.#parse());
    this.#reading = undefined;
    this.#kept = undefined;
    this.#expect = "comma";
  }

  /** The kept bytes as JSON; `undefined` when cut at the cap or not JSON. */
  #parse(): unknown {
    if (this.#kept === undefined) return undefined;
    try {
      return JSON.parse(new TextDecoder().decode(new Uint8Array(this.#kept)));
    } catch {
      return undefined;
    }
  }
}
