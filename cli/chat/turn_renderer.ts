import type { AgentEvent } from "@panto/lib";
import type { Component } from "@panto/tui";
import type { ToolUse } from "./components/tool_use.ts";
import type { StreamedBlock, TranscriptView } from "./transcript_view.ts";

/** Where a turn's components go. */
export interface TranscriptSink {
  /** Adds a component at the end. */
  append(component: Component): void;
  /** Takes a component off the screen. */
  remove(component: Component): void;
}

/** Shows a one-line notice; a `transient` one replaces the previous transient one. */
export type Notify = (
  text: string,
  level: "info" | "warning" | "error",
  transient?: boolean,
) => void;

/** A delay as the retry notice says it: whole seconds, tenths below ten. */
function seconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 10 || Number.isInteger(s) ? Math.round(s) : s.toFixed(1)}s`;
}

/**
 * Routes one run's events to components: one component per streamed block,
 * one tool-use instance per call id (parallel calls each own theirs).
 */
export class TurnRenderer {
  readonly #view: TranscriptView;
  readonly #transcript: TranscriptSink;
  readonly #notify: Notify;
  readonly #maxRetries: number;
  /** Components of the assistant message being streamed, by block index. */
  #blocks = new Map<number, StreamedBlock & { tool?: ToolUse }>();

  /**
   * @param view Builds components (through the UI events).
   * @param transcript Where components are appended (and removed from).
   * @param notify Shows a one-line notice (`transient`: on the one line passing states share).
   * @param maxRetries How many retries the agent makes (counted in the retry notice).
   */
  constructor(
    view: TranscriptView,
    transcript: TranscriptSink,
    notify: Notify,
    maxRetries: number,
  ) {
    this.#view = view;
    this.#transcript = transcript;
    this.#notify = notify;
    this.#maxRetries = maxRetries;
  }

  /** Applies one event. */
  handle(event: AgentEvent): void {
    switch (event.type) {
      case "block_start":
        return this.#start(event.blockIndex, event.kind, event.toolUse);
      case "content_delta":
        this.#blocks.get(event.blockIndex)?.append(event.text);
        return;
      case "block_complete": {
        const block = this.#blocks.get(event.blockIndex);
        block?.finish();
        if (event.block.type === "tool_use") block?.tool?.setArgs(event.block.input);
        return;
      }
      case "message_complete":
        this.#blocks = new Map();
        if (event.stopReason === "max_tokens") {
          this.#notify("The answer hit the output token limit.", "warning");
        }
        if (event.stopReason === "refusal") {
          this.#notify("The model declined to answer.", "warning");
        }
        return;
      case "tool_dispatch_start":
        this.#view.toolFor(event.call.id)?.setStatus("running");
        return;
      case "tool_progress":
        this.#view.showProgress(event.call.id, event.partial);
        return;
      case "tool_dispatch_complete":
        this.#view.showResult(event.call.id, event.result, event.isError);
        return;
      case "provider_retry":
        if (event.discardedPartial) this.#discardPartial();
        this.#notify(
          `Retrying (${event.attempt}/${this.#maxRetries}) in ${
            seconds(event.delayMs)
          }: ${event.error.message}`,
          "warning",
          true,
        );
        return;
      case "compaction":
        this.#transcript.append(this.#view.compaction(event.summary, event.tokensBefore));
        return;
      case "run_complete":
        if (event.turnLimitReached) {
          this.#notify(
            `Stopped after ${event.requests} model requests (the turn limit).`,
            "warning",
          );
        }
        return;
    }
  }

  #start(index: number, kind: string, toolUse: { id: string; name: string } | undefined): void {
    if (kind === "text") {
      const text = this.#view.assistantText();
      this.#blocks.set(index, text);
      this.#transcript.append(text.component);
    } else if (kind === "thinking") {
      const thinking = this.#view.thinking();
      this.#blocks.set(index, thinking);
      this.#transcript.append(thinking.component);
    } else if (kind === "tool_use" && toolUse) {
      const { component, tool } = this.#view.tool(toolUse.id, toolUse.name);
      // Argument JSON escapes controls; the tool-use component strips them once parsed.
      const append = (text: string) => tool.appendArgs(text);
      this.#blocks.set(index, { component, tool, append, finish: () => {} });
      this.#transcript.append(component);
    }
  }

  /** A retried attempt had streamed blocks: they are void, take them off the screen. */
  #discardPartial(): void {
    for (const block of this.#blocks.values()) this.#transcript.remove(block.component);
    this.#blocks = new Map();
  }
}
