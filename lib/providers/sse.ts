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
 */
export class SseParser {
  // ignoreBOM keeps U+FEFF in the text so that #consume strips exactly one,
  // whether the stream arrives as bytes or as strings (WPT format-bom-2).
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #buffer = "";
  #sawFirstChar = false;
  #pendingCR = false;
  #data: string[] = [];
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
    this.#data = [];
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
      if (text.charCodeAt(0) === 10) start = 1;
    }
    const length = text.length;
    let i = start;
    while (i < length) {
      const code = text.charCodeAt(i);
      if (code !== 10 && code !== 13) {
        i++;
        continue;
      }
      const line = this.#buffer + text.slice(start, i);
      this.#buffer = "";
      this.#line(line, events);
      if (code === 13) {
        if (i + 1 === length) this.#pendingCR = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      i++;
      start = i;
    }
    if (start < length) this.#buffer += text.slice(start);
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      this.#dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ":" comment
    const colon = line.indexOf(":");
    let field = line;
    let value = "";
    if (colon !== -1) {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case "data":
        this.#data.push(value);
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

  #dispatch(events: SseEvent[]): void {
    if (this.#data.length === 0) {
      this.#type = "";
      return;
    }
    events.push({ type: this.#type || "message", data: this.#data.join("\n"), id: this.#id });
    this.#data = [];
    this.#type = "";
  }
}
