/**
 * Amazon's binary event stream (`application/vnd.amazon.eventstream`), the
 * framing of Bedrock's streaming replies, read into the events the
 * providers' parsers take. Each frame is checked and decoded by
 * `@smithy/eventstream-codec` (the AWS SDK's own codec), loaded on the
 * first Bedrock reply: it and `@smithy/core` add tens of milliseconds to a
 * start that never talks to Bedrock.
 *
 * @module
 */
import type { EventStreamCodec } from "@smithy/eventstream-codec";
import { concatBytes } from "../concat_bytes.ts";
import { ProviderError } from "../errors.ts";
import { errorMessage } from "../error_message.ts";
import { classifyStreamError, hostOf } from "./error_classification.ts";
import type { BodyDecoder, BodyFraming } from "./http.ts";
import type { SseEvent } from "./sse.ts";

/** Bytes of a frame's total-length prefix. */
const PRELUDE_LENGTH_BYTES = 4;

/** A frame's smallest size: prelude (8), prelude CRC (4) and message CRC (4). */
const MIN_FRAME_BYTES = 16;

/** The largest frame the format allows (16 MiB); a larger length means a corrupt prefix. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const utf8Decoder = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** The codec, once loaded (it is stateless: one serves every stream). */
let codec: EventStreamCodec | undefined;

async function loadCodec(): Promise<EventStreamCodec> {
  const { EventStreamCodec } = await import("@smithy/eventstream-codec");
  codec ??= new EventStreamCodec(
    (bytes) => utf8Decoder.decode(bytes),
    (text) => utf8Encoder.encode(text),
  );
  return codec;
}

/**
 * Amazon's event stream as a {@linkcode BodyFraming}. A frame becomes an
 * event whose `type` is its `:event-type`, or, for an exception frame, its
 * `:exception-type` (as the API's stream union names both, e.g.
 * `contentBlockDelta`, `throttlingException`); `data` is its JSON payload
 * and `id` is empty. A frame that fails its checksums, and an
 * unmodelled `error` frame, fail the stream; a body that ends mid-frame was
 * cut (`network`).
 *
 * @example Decode one frame
 * ```ts
 * import { EventStreamCodec } from "@smithy/eventstream-codec";
 * import { AWS_EVENT_STREAM } from "./aws_eventstream.ts";
 * const codec = new EventStreamCodec((b) => new TextDecoder().decode(b), (s) => new TextEncoder().encode(s));
 * const frame = codec.encode({
 *   headers: {
 *     ":message-type": { type: "string", value: "event" },
 *     ":event-type": { type: "string", value: "messageStart" },
 *   },
 *   body: new TextEncoder().encode('{"role":"assistant"}'),
 * });
 * const decoder = await AWS_EVENT_STREAM.decoder("https://bedrock-runtime.us-east-1.amazonaws.com");
 * const [event] = decoder.push(frame);
 * console.assert(event?.type === "messageStart" && event.data === '{"role":"assistant"}');
 * ```
 */
export const AWS_EVENT_STREAM: BodyFraming = {
  mediaType: "application/vnd.amazon.eventstream",
  decoder: async (url) => new EventStreamDecoder(url, codec ?? await loadCodec()),
};

/**
 * Cuts the body into frames by their length prefix and decodes each. Not
 * the SDK's `getChunkedStream`: that is an async step per frame, where
 * this decodes every frame a network chunk completes in one call.
 */
class EventStreamDecoder implements BodyDecoder {
  readonly #url: string;
  readonly #codec: EventStreamCodec;
  /** Bytes of a frame not complete yet. */
  #rest: Uint8Array = new Uint8Array();
  /** A failure met after events of the same chunk, thrown on the next call (they go first). */
  #failure: ProviderError | undefined;

  constructor(url: string, codec: EventStreamCodec) {
    this.#url = url;
    this.#codec = codec;
  }

  push(chunk: Uint8Array): SseEvent[] {
    this.#throwFailure();
    const bytes = this.#rest.length === 0 ? chunk : concatBytes([this.#rest, chunk]);
    const events: SseEvent[] = [];
    let offset = 0;
    try {
      for (;;) {
        const length = this.#frameLength(bytes, offset);
        if (length === undefined || offset + length > bytes.length) break;
        events.push(this.#event(bytes.subarray(offset, offset + length)));
        offset += length;
      }
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      if (events.length === 0) throw error;
      this.#failure = error;
    }
    // A copy: the caller may reuse the chunk's buffer.
    this.#rest = bytes.slice(offset);
    return events;
  }

  end(): SseEvent[] {
    this.#throwFailure();
    if (this.#rest.length > 0) {
      throw new ProviderError(
        "network",
        `the stream from ${hostOf(this.#url)} ended in the middle of an event-stream frame`,
      );
    }
    return [];
  }

  #throwFailure(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** The length the frame at `offset` announces, or `undefined` before its prefix is whole. */
  #frameLength(bytes: Uint8Array, offset: number): number | undefined {
    if (bytes.length - offset < PRELUDE_LENGTH_BYTES) return undefined;
    const length = new DataView(bytes.buffer, bytes.byteOffset + offset).getUint32(0);
    if (length < MIN_FRAME_BYTES || length > MAX_FRAME_BYTES) {
      throw this.#malformed(`a frame announces ${length} bytes`);
    }
    return length;
  }

  #event(frame: Uint8Array): SseEvent {
    let message;
    try {
      message = this.#codec.decode(frame);
    } catch (error) {
      throw this.#malformed(errorMessage(error));
    }
    const header = (name: string) => {
      const value = message.headers[name]?.value;
      return typeof value === "string" ? value : "";
    };
    const data = utf8Decoder.decode(message.body);
    switch (header(":message-type")) {
      case "event":
        return { type: header(":event-type"), data, id: "" };
      case "exception":
        return { type: header(":exception-type"), data, id: "" };
      default:
        // An `error` frame: a failure outside the API's model, named in headers.
        throw classifyStreamError(
          { error: { type: header(":error-code"), message: header(":error-message") } },
          this.#url,
        );
    }
  }

  #malformed(detail: string): ProviderError {
    return new ProviderError(
      "stream",
      `${hostOf(this.#url)} sent a malformed event-stream frame: ${detail}`,
    );
  }
}
