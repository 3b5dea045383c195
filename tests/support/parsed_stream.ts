/**
 * A stream parser read to its end for fixture tests: its events, and the
 * message it assembled or the error it threw (with the partial message).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ContentBlock } from "../../lib/content.ts";
import { ProviderError } from "../../lib/errors.ts";
import type { AssistantResult, ProviderStreamEvent } from "../../lib/providers/provider.ts";
import { emptyUsage, type Usage } from "../../lib/usage.ts";
import { randomChunks, seededRandom } from "./chunked_sse.ts";

/** What a parser produced. */
export interface ParserRun {
  /** Every event, batches flattened. */
  events: ProviderStreamEvent[];
  /** The assembled message's blocks, or the error's partial blocks. */
  content: ContentBlock[];
  /** The message's usage, or the partial usage. */
  usage: Usage;
  /** The message, when the parser returned one. */
  result?: AssistantResult;
  /** The error, when it threw. */
  error?: ProviderError;
}

/**
 * Reads a parser's stream to its end, asserting that no batch is empty and
 * that whatever it throws is a `ProviderError`.
 *
 * @param stream What the parser returned.
 * @returns Its events and outcome.
 */
export async function runParser(
  stream: AsyncGenerator<ProviderStreamEvent[], AssistantResult, void>,
): Promise<ParserRun> {
  const events: ProviderStreamEvent[] = [];
  try {
    for (let step = await stream.next();; step = await stream.next()) {
      if (step.done) {
        return { events, content: step.value.content, usage: step.value.usage, result: step.value };
      }
      assert.ok(step.value.length > 0, "no empty batch is yielded");
      events.push(...step.value);
    }
  } catch (error) {
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${error}`);
    const partial = error.partial;
    return {
      events,
      content: partial?.content ?? [],
      usage: partial?.usage ?? emptyUsage(),
      error,
    };
  }
}

/**
 * The events tell the same story as the message: block indices start dense,
 * deltas add up to each block's text, and each block completes once, as it
 * stands in the message (a failed stream's partial blocks need not have
 * completed).
 *
 * @param name The fixture, for messages.
 * @param run What the parser produced.
 */
export function assertEventsMatchContent(name: string, run: ParserRun): void {
  const streamed: { text: string; done?: ContentBlock }[] = [];
  for (const event of run.events) {
    if (event.type === "block_start") {
      assert.equal(event.blockIndex, streamed.length, `${name}: block indices are dense`);
      streamed.push({ text: "" });
      continue;
    }
    const entry = streamed[event.blockIndex];
    assert.ok(entry, `${name}: event for unknown block ${event.blockIndex}`);
    assert.equal(entry.done, undefined, `${name}: event after block ${event.blockIndex} completed`);
    if (event.type === "content_delta") entry.text += event.text;
    else entry.done = event.block;
  }
  if (run.result) assert.deepEqual(streamed.map((entry) => entry.done), run.content, name);
  else assert.equal(streamed.length, run.content.length, `${name}: partial blocks`);
  streamed.forEach((entry, index) => {
    const block = run.content[index];
    if (block?.type === "text") assert.equal(entry.text, block.text, `${name}: text deltas`);
    if (block?.type === "thinking") assert.equal(entry.text, block.thinking, `${name}: thinking`);
    if (block?.type === "tool_use" && block.invalidInput === undefined) {
      assert.deepEqual(JSON.parse(entry.text || "{}"), block.input, `${name}: tool input`);
    }
  });
}

/**
 * Block events are well formed: blocks start at 0, 1, 2… in order, every
 * delta belongs to a started block, each block completes once, the deltas
 * add up to the block, a call's start names it, and the completed blocks
 * are the returned content (in index order, whatever order they completed
 * in).
 *
 * @param run What the parser produced.
 */
export function assertEventInvariants(run: ParserRun): void {
  const started: ProviderStreamEvent[] = [];
  const text = new Map<number, string>();
  const completed = new Map<number, ContentBlock>();
  for (const event of run.events) {
    if (event.type === "block_start") {
      assert.equal(event.blockIndex, started.length, "blocks start in order");
      started.push(event);
      text.set(event.blockIndex, "");
    } else if (event.type === "content_delta") {
      assert.ok(text.has(event.blockIndex), "delta for a started block");
      assert.ok(!completed.has(event.blockIndex), "no delta after completion");
      text.set(event.blockIndex, text.get(event.blockIndex)! + event.text);
    } else {
      assert.ok(text.has(event.blockIndex), "completion of a started block");
      assert.ok(!completed.has(event.blockIndex), "a block completes once");
      completed.set(event.blockIndex, event.block);
    }
  }
  if (!run.result) return;
  assert.equal(completed.size, started.length, "every block completes on success");
  assert.deepEqual(
    [...completed.keys()].sort((a, b) => a - b).map((i) => completed.get(i)),
    run.result.content,
  );
  for (const [index, block] of completed) {
    const streamed = text.get(index)!;
    if (block.type === "text") assert.equal(streamed, block.text);
    else if (block.type === "thinking") assert.equal(streamed, block.thinking);
    else if (block.type === "tool_use") {
      assert.deepEqual(streamed.trim() === "" ? {} : JSON.parse(streamed), block.input);
      const start = started[index];
      assert.ok(start?.type === "block_start");
      assert.deepEqual(start.toolUse, { id: block.id, name: block.name });
    }
  }
}

/** A tool call as the tests compare it. */
export interface ToolFact {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/**
 * The text of the blocks, joined.
 *
 * @param content Assembled blocks.
 * @returns Their text.
 */
export function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/**
 * The thinking of the blocks, joined.
 *
 * @param content Assembled blocks.
 * @returns Their thinking.
 */
export function thinkingOf(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === "thinking" ? block.thinking : "")).join("");
}

/**
 * The tool calls among the blocks.
 *
 * @param content Assembled blocks.
 * @returns Each call's id, name and input.
 */
export function toolsOf(content: readonly ContentBlock[]): ToolFact[] {
  return content.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id, name: block.name, input: block.input }] : []
  );
}

/**
 * Asserts that a recording read in random chunks (three seeds, up to 24
 * bytes) gives what it gave whole: the same events, message and error.
 *
 * @param name The fixture, for messages.
 * @param bytes Its bytes.
 * @param whole What reading it in one chunk gave.
 * @param parse Reads the bytes in the chunks given.
 */
export async function assertSameInChunks(
  name: string,
  bytes: Uint8Array,
  whole: ParserRun,
  parse: (chunks: readonly Uint8Array[]) => Promise<ParserRun>,
): Promise<void> {
  for (const seed of [1, 7, 2026]) {
    const chunked = await parse(randomChunks(bytes, seededRandom(seed), 24));
    assert.deepEqual(chunked.events, whole.events, `${name}: events, seed ${seed}`);
    assert.deepEqual(chunked.result, whole.result, `${name}: result, seed ${seed}`);
    assert.equal(chunked.error?.message, whole.error?.message, `${name}: error, seed ${seed}`);
  }
}
