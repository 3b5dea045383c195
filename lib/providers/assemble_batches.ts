import type { PartialMessage, ProviderError } from "../errors.ts";
import type { StopReason } from "../message.ts";
import { isAbortError } from "./http.ts";
import type { AssistantResult, ProviderStreamEvent } from "./provider.ts";
import type { SseEvent } from "./sse.ts";

/** Incremental message state fed one SSE event at a time. */
export interface EventAssembler {
  /**
   * Applies one event, appending the stream events it completes to `out`.
   * May throw; then whatever it appended for this event is discarded.
   */
  handle(event: SseEvent, out: ProviderStreamEvent[]): void;
  /** True once the stream's end marker arrived: later events are ignored. */
  readonly ended: boolean;
}

/**
 * Feeds batches of SSE events to an assembler and yields, per batch, the
 * stream events they complete (never an empty batch). Batching keeps the
 * async steps per network chunk instead of per event.
 *
 * When an event fails, the events produced earlier in its batch are yielded
 * first, then the error is thrown: consumers see the same sequence as when
 * events were yielded one by one.
 *
 * @param batches Parsed SSE events in batches, e.g. from `streamSse`.
 * @param assembler The provider's assembler.
 * @returns Batches of stream events; stops after the assembler has ended.
 *
 * @example
 * ```ts
 * import { assembleBatches } from "./assemble_batches.ts";
 * async function* source() { yield [{ type: "message", data: "hi", id: "" }]; }
 * const assembler = {
 *   ended: false,
 *   handle(event: { data: string }, out: unknown[]) {
 *     out.push({ type: "content_delta", blockIndex: 0, kind: "text", text: event.data });
 *   },
 * };
 * for await (const batch of assembleBatches(source(), assembler)) console.assert(batch.length === 1);
 * ```
 */
export async function* assembleBatches(
  batches: AsyncIterable<readonly SseEvent[]>,
  assembler: EventAssembler,
): AsyncGenerator<ProviderStreamEvent[], void, void> {
  for await (const batch of batches) {
    const out: ProviderStreamEvent[] = [];
    let failure: { error: unknown } | undefined;
    for (const event of batch) {
      const kept = out.length;
      try {
        assembler.handle(event, out);
      } catch (error) {
        // As before batching: an event that fails contributes no stream events.
        out.length = kept;
        failure = { error };
        break;
      }
      if (assembler.ended) break;
    }
    if (out.length > 0) yield out;
    if (failure !== undefined) throw failure.error;
    if (assembler.ended) return;
  }
}

/** An assembler of one whole assistant message, for {@linkcode assembleMessage}. */
export interface MessageAssembler extends EventAssembler {
  /** Why the events so far are not a whole message (the stream was cut), or `undefined`. */
  cutShort(): ProviderError | undefined;
  /** Completes every block still open at the end, appending their events to `out`. */
  closeAll(out: ProviderStreamEvent[]): void;
  /** The assembled message; `stopReason` overrides the one the server gave. */
  result(stopReason?: StopReason): AssistantResult;
  /** A failure as a {@linkcode ProviderError} holding what was assembled so far. */
  withPartial(error: unknown): ProviderError;
  /** Loads what a partial message needs, before `result("aborted")` or `withPartial`. */
  preparePartial?(): Promise<void>;
}

/**
 * A whole message from its blocks and usage, why it stopped, and what the
 * stream held that the assembler did not know (left out when nothing).
 *
 * @param assembled The blocks and usage.
 * @param stopReason Why it stopped.
 * @param unrecognised What was not known, e.g. `block type "x"`.
 * @returns The message.
 *
 * @example
 * ```ts
 * import { assistantResult } from "./assemble_batches.ts";
 * import { emptyUsage } from "../usage.ts";
 * const result = assistantResult({ content: [], usage: emptyUsage() }, "end_turn", new Set());
 * console.assert(result.unrecognised === undefined);
 * ```
 */
export function assistantResult(
  assembled: PartialMessage,
  stopReason: StopReason,
  unrecognised: ReadonlySet<string>,
): AssistantResult {
  return {
    ...assembled,
    stopReason,
    ...(unrecognised.size ? { unrecognised: [...unrecognised] } : {}),
  };
}

/**
 * Assembles one message with {@linkcode assembleBatches}: yields the batches,
 * then the events of blocks still open at a normal end, and returns the
 * message. An abort error from the source returns the partial message with
 * stop reason `aborted`; any other failure, or a stream cut short, throws
 * with the partial message attached.
 *
 * @example
 * ```ts ignore
 * import { assembleMessage } from "./assemble_batches.ts";
 * const result = yield* assembleMessage(events, new MyAssembler(url));
 * ```
 *
 * @param batches Parsed SSE events in batches, e.g. from `streamSse`.
 * @param assembler The provider's message assembler.
 * @returns Batches of stream events, then the assembled message.
 * @throws {ProviderError} From `withPartial`, as described above.
 */
export async function* assembleMessage(
  batches: AsyncIterable<readonly SseEvent[]>,
  assembler: MessageAssembler,
): AsyncGenerator<ProviderStreamEvent[], AssistantResult, void> {
  try {
    yield* assembleBatches(batches, assembler);
  } catch (error) {
    await assembler.preparePartial?.();
    if (isAbortError(error)) return assembler.result("aborted");
    throw assembler.withPartial(error);
  }
  const cut = assembler.cutShort();
  if (cut !== undefined) {
    await assembler.preparePartial?.();
    throw assembler.withPartial(cut);
  }
  const closing: ProviderStreamEvent[] = [];
  assembler.closeAll(closing);
  if (closing.length > 0) yield closing;
  return assembler.result();
}
