/** One dispatched server-sent event. */
export interface SseEvent {
  /** The `event:` field, or `"message"`. */
  type: string;
  /** The joined `data:` lines. */
  data: string;
  /** The last event id seen (kept across events, as the spec says). */
  id: string;
}

/**
 * A WHATWG-compliant `text/event-stream` parser fed with arbitrary chunks:
 * CR, LF and CRLF line ends (a CRLF may be split across chunks), comments,
 * multi-line data, a leading BOM stripped once, streaming UTF-8 decoding.
 * A trailing event without a blank line is discarded at the end, per spec.
 *
 * Hand-written because the common npm parser (`eventsource-parser`) does not
 * decode bytes and we want one pass over the text with no extra copies.
 *
 * @example Parse a stream split mid-line
 * ```ts
 * import { SseParser } from "@panto/lib";
 * const parser = new SseParser();
 * const events = [...parser.push("event: ping\ndata: {\"a\""), ...parser.push(":1}\n\n")];
 * console.assert(events.length === 1 && events[0]?.type === "ping" && events[0]?.data === '{"a":1}');
 * ```
 */
export class SseParser {
  // ignoreBOM keeps U+FEFF in the text so that #consume strips exactly one,
  // whether the stream arrives as bytes or as strings (WPT format-bom-2).
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #buffer = "";
  #sawFirstChar = false;
  #pendingCR = false;
  /** The event's data lines joined so far; `#hasData` tells "" from none. */
  #data = "";
  #hasData = false;
  #type = "";
  #id = "";
  /** Reconnection time from `retry:` fields (ms), unused by LLM clients but parsed per spec. */
  retry: number | undefined;

  /**
   * Feeds bytes or text; returns the events completed by this chunk.
   *
   * @param chunk The next piece of the stream.
   * @returns Events dispatched, in order.
   */
  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    return this.#consume(text);
  }

  /**
   * Ends the stream: flushes the decoder; an unterminated event is dropped.
   *
   * @returns Events completed by the flushed text.
   */
  end(): SseEvent[] {
    const events = this.#consume(this.#decoder.decode());
    this.#buffer = "";
    this.#data = "";
    this.#hasData = false;
    this.#type = "";
    return events;
  }

  #consume(text: string): SseEvent[] {
    if (text.length === 0) return [];
    if (!this.#sawFirstChar) {
      this.#sawFirstChar = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const events: SseEvent[] = [];
    let start = 0;
    if (this.#pendingCR) {
      this.#pendingCR = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    const length = text.length;
    // indexOf scans natively; each position is searched once per kind of line end.
    let nextLF = text.indexOf("\n", start);
    let nextCR = text.indexOf("\r", start);
    while (nextLF !== -1 || nextCR !== -1) {
      const end = nextCR === -1 || (nextLF !== -1 && nextLF < nextCR) ? nextLF : nextCR;
      if (this.#buffer === "") {
        this.#line(text, start, end, events);
      } else {
        const line = this.#buffer + text.slice(start, end);
        this.#buffer = "";
        this.#line(line, 0, line.length, events);
      }
      start = end + 1;
      if (end === nextCR) {
        if (start === length) this.#pendingCR = true;
        else if (text.charCodeAt(start) === LF) start++;
      }
      if (nextLF !== -1 && nextLF < start) nextLF = text.indexOf("\n", start);
      if (nextCR !== -1 && nextCR < start) nextCR = text.indexOf("\r", start);
    }
    if (start < length) this.#buffer += text.slice(start);
    return events;
  }

  /** Interprets the line `text[start, end)`, without copying it for the common fields. */
  #line(text: string, start: number, end: number, events: SseEvent[]): void {
    if (start === end) {
      this.#dispatch(events);
      return;
    }
    if (text.startsWith("data:", start)) {
      this.#appendData(text.slice(valueStart(text, start + 5, end), end));
      return;
    }
    if (text.startsWith("event:", start)) {
      this.#type = text.slice(valueStart(text, start + 6, end), end);
      return;
    }
    if (text.charCodeAt(start) === COLON) return; // a comment
    const line = text.slice(start, end);
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(valueStart(line, colon + 1, line.length));
    switch (field) {
      case "data":
        this.#appendData(value);
        break;
      case "event":
        this.#type = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#id = value;
        break;
      case "retry":
        if (/^[0-9]+$/.test(value)) this.retry = Number(value);
        break;
    }
  }

  #appendData(value: string): void {
    // One data line (the usual case) needs no joining.
    if (this.#hasData) this.#data += "\n" + value;
    else this.#data = value;
    this.#hasData = true;
  }

  #dispatch(events: SseEvent[]): void {
    if (this.#hasData) {
      events.push({ type: this.#type || "message", data: this.#data, id: this.#id });
    }
    this.#data = "";
    this.#hasData = false;
    this.#type = "";
  }
}

const LF = 10;
const COLON = 58;
const SPACE = 32;

/** Where a field's value starts: after the colon and one optional space. */
function valueStart(text: string, afterColon: number, end: number): number {
  return afterColon < end && text.charCodeAt(afterColon) === SPACE ? afterColon + 1 : afterColon;
}
