import {
  type Component,
  Container,
  Image,
  type ImageSupport,
  NO_IMAGES,
  sanitizeTerminalText,
  TerminalTextSanitizer,
  Text,
  type Theme,
} from "@panto/tui";
import {
  type ImagePart,
  type Message,
  type ResultPart,
  runContinuesAfter,
  type ToolResultBlock,
} from "@panto/lib";
import { AssistantMessage } from "./components/assistant_message.ts";
import { type NoticeLevel, noticeStyle } from "./components/notice_line.ts";
import { CompactionSummary } from "./components/compaction_summary.ts";
import { Thinking } from "./components/thinking.ts";
import { ToolUse } from "./components/tool_use.ts";
import { UserMessage } from "./components/user_message.ts";
import { UI_EVENTS, type UiEvents } from "./ui_events.ts";
import { typedPrompt } from "../controller/typed_prompt.ts";

/** A block streamed into: `append` takes deltas, `finish` ends the block. */
export interface StreamedBlock {
  /** The block's component. */
  component: Component;
  /** Adds a streamed delta. */
  append(text: string): void;
  /** Shows what was held back for a sequence split across deltas. */
  finish(): void;
}

/** How the transcript draws images (user messages' and tool results'). */
export interface TranscriptImages {
  /** What the terminal draws now (placeholders until it answered). */
  support: () => ImageSupport;
  /** The tallest an image is drawn, in rows (below the screen's height). */
  maxRows: () => number;
  /** An image changed by itself (a JPEG converted for Kitty): render again. */
  changed: () => void;
}

/** What an interrupted run with an answer (or tool results) says, live and resumed. */
export const INTERRUPTED = "Interrupted. The partial answer was kept.";

const PLACEHOLDERS_ONLY: TranscriptImages = {
  support: () => NO_IMAGES,
  maxRows: () => 16,
  changed: () => {},
};

/**
 * Builds the components of a transcript through the UI events, so extensions
 * can wrap each one. Untrusted text (model output, stored messages) is
 * stripped of terminal controls here, before any component sees it.
 */
export class TranscriptView {
  readonly #events: UiEvents;
  readonly #theme: Theme;
  readonly #tools = new Map<string, ToolUse>();
  /** The components of tool calls as mounted (an extension may have wrapped them). */
  readonly #toolComponents = new WeakSet<Component>();
  readonly #summaryComponents = new WeakSet<Component>();
  #showThinking: boolean;
  readonly #thinking: Thinking[] = [];
  readonly #collapsible: { setExpanded(expanded: boolean): void }[] = [];
  #expanded = false;
  readonly #images: TranscriptImages;

  /**
   * @param events The UI events extensions hook into.
   * @param theme Colours.
   * @param showThinking Whether thinking blocks start visible.
   * @param images How images are drawn (default: as placeholders).
   */
  constructor(
    events: UiEvents,
    theme: Theme,
    showThinking = true,
    images: TranscriptImages = PLACEHOLDERS_ONLY,
  ) {
    this.#events = events;
    this.#theme = theme;
    this.#showThinking = showThinking;
    this.#images = images;
  }

  /** Whether tool calls and summaries are expanded. */
  get expanded(): boolean {
    return this.#expanded;
  }

  /** A user message, with the images pasted with it under it. */
  user(raw: string, images: readonly ImagePart[] = []): Component {
    const text = sanitizeTerminalText(raw);
    const message = this.#events.create(
      UI_EVENTS.userMessage,
      { text },
      () => new UserMessage(text, this.#theme),
    );
    if (images.length === 0) return message;
    const withImages = new Container();
    withImages.addChild(message);
    for (const image of this.#imageComponents(images)) withImages.addChild(image);
    return withImages;
  }

  /** Components drawing `images` (or their placeholders), indented under a message or call. */
  #imageComponents(images: readonly ImagePart[], name?: string): Image[] {
    return images.map((image) =>
      new Image(image, {
        support: this.#images.support,
        maxRows: this.#images.maxRows(),
        indent: 2,
        theme: this.#theme,
        onChange: this.#images.changed,
        ...(name === undefined ? {} : { name: sanitizeTerminalText(name) }),
      })
    );
  }

  /** An (empty) assistant text block to stream into. */
  assistantText(): StreamedBlock {
    const inner = new AssistantMessage({ theme: this.#theme });
    const component = this.#events.create(UI_EVENTS.assistantText, {}, () => inner);
    return streamedBlock(component, inner);
  }

  /** An (empty) thinking block to stream into. */
  thinking(): StreamedBlock {
    const inner = new Thinking({ theme: this.#theme, hidden: !this.#showThinking });
    this.#thinking.push(inner);
    const component = this.#events.create(UI_EVENTS.thinking, {}, () => inner);
    return streamedBlock(component, inner);
  }

  /** The tool-use component of a call (one instance per call id). */
  tool(callId: string, name: string): { component: Component; tool: ToolUse } {
    const inner = new ToolUse({ callId, name }, { theme: this.#theme, expanded: this.#expanded });
    this.#tools.set(callId, inner);
    this.#collapsible.push(inner);
    const component = this.#events.create(UI_EVENTS.tool, { callId, name }, () => inner);
    this.#toolComponents.add(component);
    return { component, tool: inner };
  }

  /** Whether `component` is the component of a tool call made by {@linkcode TranscriptView.tool}. */
  isToolCall(component: Component): boolean {
    return this.#toolComponents.has(component);
  }

  /** Whether ctrl+o expands `component`: a tool call's or a compaction summary's. */
  isCollapsible(component: Component): boolean {
    return this.#toolComponents.has(component) || this.#summaryComponents.has(component);
  }

  /** The tool-use component created for `callId`, if any. */
  toolFor(callId: string): ToolUse | undefined {
    return this.#tools.get(callId);
  }

  /** A one-line notice (stripped of terminal controls), coloured by its level. */
  notice(text: string, level: NoticeLevel = "info"): Component {
    return new Text(sanitizeTerminalText(text), { style: noticeStyle(this.#theme, level) });
  }

  /** A compaction summary. */
  compaction(summary: string, tokensBefore?: number, tokensAfter?: number): Component {
    const data = {
      summary: sanitizeTerminalText(summary),
      ...(tokensBefore === undefined ? {} : { tokensBefore }),
      ...(tokensAfter === undefined ? {} : { tokensAfter }),
    };
    const inner = new CompactionSummary(data, this.#theme);
    inner.setExpanded(this.#expanded);
    this.#collapsible.push(inner);
    const component = this.#events.create(UI_EVENTS.compaction, data, () => inner);
    this.#summaryComponents.add(component);
    return component;
  }

  /** Expands or collapses every tool call and summary (ctrl+o). */
  setExpanded(expanded: boolean): void {
    this.#expanded = expanded;
    for (const item of this.#collapsible) item.setExpanded(expanded);
  }

  /** Shows or hides every thinking block. */
  setShowThinking(show: boolean): void {
    this.#showThinking = show;
    for (const block of this.#thinking) block.setHidden(!show);
  }

  /** Whether thinking blocks are shown. */
  get showThinking(): boolean {
    return this.#showThinking;
  }

  /**
   * Components for a stored conversation (on resume). Messages re-appended
   * after a compaction summary are copies of ones shown already: skipped.
   */
  history(messages: readonly Message[]): Component[] {
    const out: Component[] = [];
    let skip = 0;
    let previous: Message | undefined;
    for (const message of messages) {
      if (skip > 0) {
        skip--;
        continue;
      }
      for (const block of message.content) {
        switch (block.type) {
          case "text":
            // A prompt shows as typed (its first block), as it did when sent: not its attachments.
            if (message.role === "user") {
              if (block === message.content[0]) {
                const typed = typedPrompt(message);
                out.push(this.user(typed.text, typed.images));
              }
            } else if (message.role === "assistant" && block.text.trim()) {
              out.push(this.#filled(this.assistantText(), block.text));
            }
            break;
          case "thinking": {
            out.push(this.#filled(this.thinking(), block.thinking));
            break;
          }
          case "tool_use": {
            const { component, tool } = this.tool(block.id, block.name);
            tool.setArgs(block.input);
            out.push(component);
            break;
          }
          case "tool_result":
            this.#storedResult(block);
            break;
          case "compaction_summary":
            out.push(this.compaction(block.summary, block.tokensBefore));
            skip = block.keptMessages ?? 0;
            break;
        }
      }
      const ended = this.#endNotice(message, previous);
      if (ended) out.push(ended);
      previous = message;
    }
    return out;
  }

  /** A stored result on its call, with how long the tool ran when that was stored. */
  #storedResult(block: ToolResultBlock): void {
    this.showResult(block.toolUseId, block.content, block.isError);
    if (block.durationMs !== undefined) {
      this.toolFor(block.toolUseId)?.setDuration(block.durationMs);
    }
  }

  /**
   * What the live chat said when `message` ended its run: interrupted (with
   * or without an answer: an empty one after tool results is not the first), or failed.
   */
  #endNotice(message: Message, previous: Message | undefined): Component | undefined {
    if (message.stopReason === "aborted") {
      const answered = message.role === "tool" || message.content.length > 0 ||
        runContinuesAfter(previous);
      return this.notice(
        answered ? INTERRUPTED : "Interrupted before any answer.",
        "warning",
      );
    }
    if (message.role === "assistant" && message.stopReason === "error") {
      return this.notice(
        `The request failed: ${message.errorMessage ?? "no reason given"}`,
        "error",
      );
    }
    return undefined;
  }

  #filled(block: StreamedBlock, text: string): Component {
    block.append(text);
    block.finish();
    return block.component;
  }

  /**
   * Puts a result on its call's component (none when the call was never shown).
   *
   * @param callId The call's id.
   * @param parts What the tool returned.
   * @param isError Whether the call failed.
   */
  showResult(callId: string, parts: readonly ResultPart[], isError: boolean): void {
    const tool = this.#tools.get(callId);
    if (tool === undefined) return;
    tool.setResult(partsText(parts), isError);
    const images = parts.filter((part) => part.type === "image");
    if (images.length > 0) tool.setImages(this.#imageComponents(images, pathArgument(tool.args)));
  }

  /**
   * Shows what a running call reported so far (a `tool_progress` event).
   *
   * @param callId The call's id.
   * @param parts The latest report.
   */
  showProgress(callId: string, parts: readonly ResultPart[]): void {
    this.#tools.get(callId)?.setProgress(partsText(parts));
  }
}

/** Result parts as text; images are components of their own (see `showResult`). */
function partsText(parts: readonly ResultPart[]): string {
  return parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

/** The file name of a call's `path` argument (the read tool's), if it has one. */
function pathArgument(args: string): string | undefined {
  try {
    const path: unknown = JSON.parse(args)?.path;
    return typeof path === "string" ? path.split("/").pop() : undefined;
  } catch {
    return undefined;
  }
}

/** Feeds `inner` through a sanitizer that holds back sequences split across deltas. */
function streamedBlock(component: Component, inner: { append(text: string): void }): StreamedBlock {
  const sanitizer = new TerminalTextSanitizer();
  return {
    component,
    append: (text) => inner.append(sanitizer.push(text)),
    finish: () => inner.append(sanitizer.flush()),
  };
}
