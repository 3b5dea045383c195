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
