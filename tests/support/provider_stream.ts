import assert from "node:assert/strict";
import type { AssistantResult, ProviderStreamEvent } from "../../lib/providers/provider.ts";

/** A provider stream read to its end. */
export interface DrainedStream {
  /** Every event, batches flattened. */
  events: ProviderStreamEvent[];
  /** The assembled message. */
  result: AssistantResult;
}

/**
 * Reads a provider stream to its end, asserting that no batch is empty.
 *
 * @param stream What a provider (or a stream parser) returned.
 * @returns The events and the message.
 */
export async function drainProviderStream(
  stream: AsyncGenerator<ProviderStreamEvent[], AssistantResult, void>,
): Promise<DrainedStream> {
  const events: ProviderStreamEvent[] = [];
  for (;;) {
    const step = await stream.next();
    if (step.done) return { events, result: step.value };
    assert.ok(step.value.length > 0, "no empty batch is yielded");
    events.push(...step.value);
  }
}

/**
 * Reads a provider stream until text streams, aborts it, and reads the
 * message it ends with (asserting that it ends at once, as aborted).
 *
 * @param stream What a provider returned, its request's signal `controller`'s.
 * @param controller Aborts the request.
 * @returns The text streamed before the abort, and the message.
 */
export async function abortOnceTextStreams(
  stream: AsyncGenerator<ProviderStreamEvent[], AssistantResult, void>,
  controller: AbortController,
): Promise<{ streamed: string; end: AssistantResult }> {
  let streamed = "";
  while (streamed === "") {
    const step = await stream.next();
    assert.ok(!step.done, "the stream must not finish before the abort");
    for (const event of step.value) if (event.type === "content_delta") streamed += event.text;
  }
  controller.abort();
  const end = await stream.next();
  assert.ok(end.done, "the stream ends after the abort");
  assert.equal(end.value.stopReason, "aborted");
  return { streamed, end: end.value };
}

/**
 * Asserts that an aborted message holds just the text that streamed, a
 * strict start of the whole answer.
 *
 * @param end The aborted message.
 * @param streamed The text streamed before the abort.
 * @param fullText The answer the server would have sent.
 */
export function assertAbortedPrefix(
  end: AssistantResult,
  streamed: string,
  fullText: string,
): void {
  const partial = end.content[0];
  assert.ok(partial?.type === "text" && partial.text === streamed, JSON.stringify(end.content));
  assert.ok(fullText.startsWith(partial.text) && partial.text.length < fullText.length);
}
