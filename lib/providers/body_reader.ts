/**
 * Reading a streamed reply's body without a fresh buffer per chunk. Deno's
 * `fetch` gives every chunk of a body read the default way its own 64 KiB
 * buffer, however few bytes it holds: an answer streamed as thousands of
 * small server-sent events allocated hundreds of megabytes, which the
 * process kept as resident memory long after (and spent CPU zeroing). A
 * BYOB reader fills one buffer, handed back and forth with each read.
 *
 * @module
 */

/** One read: the next chunk, or the end of the body. */
export type BodyChunk = { done: true } | { done: false; value: Uint8Array };

/** Reads a body chunk by chunk; a chunk is valid only until the next read. */
export interface BodyReader {
  /** The next chunk, or done; the chunk's bytes are overwritten by the read after it. */
  read(): Promise<BodyChunk>;
  /** Stops reading and releases the body. */
  cancel(): Promise<void>;
}

/** Size of the one buffer a byte stream is read into (the most one read returns). */
const BUFFER_BYTES = 64 * 1024;

/**
 * A reader of `body` that reuses one buffer when `body` is a byte stream
 * (as `fetch` bodies are), else reads it the default way.
 *
 * @param body A response body.
 * @returns Its reader.
 */
export function bodyReader(body: ReadableStream<Uint8Array>): BodyReader {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (a Response built from a plain ReadableStream, as in tests).
    const reader = body.getReader();
    return {
      read: async () => {
        const result = await reader.read();
        return result.done ? { done: true } : { done: false, value: result.value };
      },
      cancel: () => reader.cancel(),
    };
  }
  let buffer = new ArrayBuffer(BUFFER_BYTES);
  return {
    async read() {
      // The buffer is transferred to the stream and comes back, filled, as the value's.
      const { done, value } = await byob.read(new Uint8Array(buffer));
      if (value !== undefined) buffer = value.buffer as ArrayBuffer;
      return done || value === undefined ? { done: true } : { done: false, value };
    },
    cancel: () => byob.cancel(),
  };
}
