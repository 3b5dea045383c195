/**
 * Amazon event-stream frames for tests, the fake server and the bench:
 * Bedrock `ConverseStream` events encoded as the service sends them (with
 * the SDK's codec), from decoded events or from the JSON-lines recordings
 * in `tests/fixtures/providers/bedrock-converse/`.
 *
 * @module
 */
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { concatBytes } from "../../lib/concat_bytes.ts";

/** One decoded stream member: its name (`contentBlockDelta`, `throttlingException`) and JSON. */
export interface BedrockWireEvent {
  /** The event or exception type. */
  type: string;
  /** The JSON payload, as sent. */
  data: string;
}

const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);

/**
 * One frame, headers in the order Bedrock sends them. A member named
 * `…Exception` is an exception frame, as the API's stream union has them.
 *
 * @param event The member.
 * @returns The frame's bytes.
 */
export function eventFrame(event: BedrockWireEvent): Uint8Array {
  const exception = event.type.endsWith("Exception");
  const string = (value: string) => ({ type: "string" as const, value });
  return codec.encode({
    headers: {
      [exception ? ":exception-type" : ":event-type"]: string(event.type),
      ":content-type": string("application/json"),
      ":message-type": string(exception ? "exception" : "event"),
    },
    body: new TextEncoder().encode(event.data),
  });
}

/**
 * A whole body of frames.
 *
 * @param events The members, in order.
 * @returns The bytes.
 */
export function eventStreamBytes(events: readonly BedrockWireEvent[]): Uint8Array {
  return concatBytes(events.map(eventFrame));
}

/**
 * The members of a JSON-lines recording (`{"<member>": <payload>}` a line,
 * as vercel/ai's `chunks.txt` and the AWS SDK's output hold them), each
 * payload's text kept byte for byte.
 *
 * @param text The recording.
 * @returns The members.
 */
export function jsonlEvents(text: string): BedrockWireEvent[] {
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => {
    const [type] = Object.keys(JSON.parse(line));
    if (type === undefined) throw new Error(`an empty member in ${line}`);
    return { type, data: line.slice(JSON.stringify(type).length + 2, line.lastIndexOf("}")) };
  });
}

/**
 * A body cut at its frame boundaries (one chunk a frame), as a server that
 * flushes each event sends it.
 *
 * @param bytes Frames.
 * @returns One view per frame.
 */
export function frameChunks(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset + 4 <= bytes.length;) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + offset).getUint32(0);
    chunks.push(bytes.subarray(offset, offset + length));
    offset += length;
  }
  return chunks;
}
