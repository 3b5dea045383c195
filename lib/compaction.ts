import type { ContentBlock } from "./content.ts";
import type { ProviderConfig } from "./config.ts";
import { withoutUnanswered } from "./context.ts";
import { contextMessages } from "./conversation.ts";
import type { Message } from "./message.ts";
import type { ProviderRequest, StreamMessage } from "./providers/provider.ts";
import type { Usage } from "./usage.ts";

/** Default tokens kept verbatim after compaction. */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;
/** Default headroom below the context window before auto-compaction. */
export const DEFAULT_RESERVE_TOKENS = 16_384;
/** Images cost roughly this many tokens each on both APIs (a 1000×1000 image is ~1300). */
const IMAGE_TOKENS = 1_500;
/** Most characters of one tool result or argument copied into the transcript to summarise. */
const MAX_SERIALISED_BLOCK = 4_000;

/** The default system prompt of the summarising request. */
export const DEFAULT_COMPACTION_PROMPT =
  `You summarise a conversation between a user and a coding agent so the agent can continue the work with only your summary and the most recent messages.
Write a structured summary in Markdown with these sections:
## Goal — what the user wants overall.
## Decisions and constraints — what was decided, preferences the user stated, constraints discovered.
## Progress — what was done, with file paths, commands run and their outcome.
## Open work — what remains, next steps, unresolved errors.
## Key facts — names, values, snippets the agent must not forget.
Be specific and terse. Do not invent anything. Do not address the user.`;

/**
 * A rough token estimate (characters / 4, images at a fixed cost): the same
 * heuristic pi and Claude Code use when no usage figure is available.
 *
 * @param message The message.
 * @returns Estimated tokens.
 */
export function estimateTokens(message: Message): number {
  let chars = 0;
  let images = 0;
  for (const block of message.content) {
    const counted = blockSize(block);
    chars += counted.chars;
    images += counted.images;
  }
  return Math.ceil(chars / 4) + images * IMAGE_TOKENS;
}

function blockSize(block: ContentBlock): { chars: number; images: number } {
  switch (block.type) {
    case "text":
      return { chars: block.text.length, images: 0 };
    case "thinking":
      return { chars: block.thinking.length, images: 0 };
    case "redacted_thinking":
      return { chars: block.data.length, images: 0 };
    case "tool_use":
      return { chars: block.name.length + JSON.stringify(block.input).length, images: 0 };
    case "tool_result": {
      let chars = 0;
      let images = 0;
      for (const part of block.content) {
        if (part.type === "text") chars += part.text.length;
        else images++;
      }
      return { chars, images };
    }
    case "image":
      return { chars: 0, images: 1 };
    case "system":
      return { chars: block.text.length, images: 0 };
    case "compaction_summary":
      return { chars: block.summary.length, images: 0 };
  }
}

/**
 * Estimated tokens of the context a provider would receive now: the last
 * reported usage (what the server counted) plus estimates for what came
 * after it, or estimates alone.
 *
 * @param messages The conversation's messages.
 * @returns Estimated context tokens.
 */
export function estimateContextTokens(messages: readonly Message[]): number {
  const context = contextMessages(messages);
  let total = 0;
  for (let i = context.length - 1; i >= 0; i--) {
    const message = context[i]!;
    const usage = message.role === "assistant" && message.stopReason !== "error"
      ? message.usage
      : undefined;
    if (usage && usage.inputTokens + usage.cacheReadTokens + usage.outputTokens > 0) {
      return total + usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens +
        usage.outputTokens;
    }
    total += estimateTokens(message);
  }
  return total;
}

/** What to summarise and what to keep. */
export interface CompactionPlan {
  /** Older messages the summary replaces. */
  summarise: Message[];
  /** The start of the latest run (a user message and all that followed), too large to keep whole: summarised on its own. */
  turnPrefix: Message[];
  /** Recent messages kept verbatim. */
  keep: Message[];
}

/**
 * Splits the wire context into a part to summarise and a recent part to
 * keep within `keepRecentTokens`. A cut never falls between a tool call and
 * its result (the kept part never starts with a tool message). When even the
 * latest run (its user message and all that followed) does not fit, the
 * cut falls inside it and the run's start is summarised separately.
 *
 * @param messages The conversation's messages.
 * @param keepRecentTokens Budget for the kept part.
 * @returns The plan, or `null` when there is nothing worth compacting.
 */
export function planCompaction(
  messages: readonly Message[],
  keepRecentTokens: number,
): CompactionPlan | null {
  // A prompt that got no answer is not summarised either: it must not come back through the summary.
  const context = withoutUnanswered(contextMessages(messages));
  if (context.length < 2) return null;
  let kept = 0;
  let cut = context.length;
  for (let i = context.length - 1; i > 0; i--) {
    kept += estimateTokens(context[i]!);
    if (kept > keepRecentTokens) break;
    if (context[i]!.role !== "tool") cut = i;
  }
  if (cut === context.length) cut = lastValidCut(context);
  if (cut <= 0) return null;
  // A cut inside an earlier exchange moves forward to the next user message;
  // only the latest run, when too large to keep whole, is split.
  const nextUser = context.findIndex((m, i) => i >= cut && m.role === "user");
  if (nextUser !== -1) cut = nextUser;
  const turnStart = lastUserIndex(context, cut);
  if (context[cut]!.role === "user" || turnStart <= 0) {
    return { summarise: context.slice(0, cut), turnPrefix: [], keep: context.slice(cut) };
  }
  return {
    summarise: context.slice(0, turnStart),
    turnPrefix: context.slice(turnStart, cut),
    keep: context.slice(cut),
  };
}

function lastValidCut(context: readonly Message[]): number {
  for (let i = context.length - 1; i > 0; i--) {
    if (context[i]!.role !== "tool") return i;
  }
  return 0;
}

/** The index of the last user message at or before `from` (0 when there is none). */
function lastUserIndex(context: readonly Message[], from: number): number {
  for (let i = from; i >= 0; i--) {
    if (context[i]!.role === "user") return i;
  }
  return 0;
}

/**
 * Renders messages as a plain transcript for the summarising model.
 *
 * @param messages The messages.
 * @returns The transcript.
 */
export function serialiseTranscript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      const text = blockTranscript(block);
      if (text) lines.push(`[${message.role}] ${text}`);
    }
  }
  return lines.join("\n\n");
}

function blockTranscript(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "thinking":
      return `(thinking) ${clip(block.thinking)}`;
    case "tool_use":
      return `(tool call ${block.name}) ${clip(JSON.stringify(block.input))}`;
    case "tool_result": {
      const text = block.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
      return `(tool result${block.isError ? ", error" : ""}) ${clip(text)}`;
    }
    case "image":
      return "[image]";
    case "compaction_summary":
      return `(summary of earlier conversation)\n${block.summary}`;
    default:
      return "";
  }
}

function clip(text: string): string {
  if (text.length <= MAX_SERIALISED_BLOCK) return text;
  const half = MAX_SERIALISED_BLOCK / 2;
  return `${text.slice(0, half)}\n… [${text.length - MAX_SERIALISED_BLOCK} characters omitted] …\n${
    text.slice(-half)
  }`;
}

/** Options for {@linkcode summarise}. */
export interface SummariseOptions {
  /** Provider and model that write the summary. */
  provider: ProviderConfig;
  /** System prompt of the summarising request. */
  systemPrompt: string;
  /** Extra instructions from the user (e.g. "keep the API decisions"). */
  instructions: string | undefined;
  /** What the transcript is: the older conversation, the start of the current run, or a branch left. */
  kind: "history" | "turn_prefix" | "branch";
  /** Aborts the request. */
  signal: AbortSignal;
  /** Idle timeout (ms). */
  idleTimeoutMs: number;
  /** Streams the summarising request: the agent's provider. */
  stream: StreamMessage;
}

const SUMMARY_TASKS: Record<SummariseOptions["kind"], string> = {
  history: "Summarise the conversation below.",
  turn_prefix:
    "The messages below are the beginning of the current turn, which is too long to keep whole. Summarise what was asked and what has been done so far in this turn.",
  branch:
    "The messages below are a branch of the conversation that the user has left to continue from an earlier point. Summarise what was asked, tried and learned on it, so the work can go on from that point without repeating it.",
};

/** What a failed summary was, for its error. */
function summaryName(kind: SummariseOptions["kind"]): string {
  return kind === "branch" ? "The branch summary" : "Compaction";
}

/** A summary the model wrote, and what its request used (so its cost is counted). */
export interface SummaryReply {
  /** The summary text. */
  text: string;
  /** Tokens of the summarising request, as the provider reported them. */
  usage: Usage;
}

/**
 * Asks the model for a summary of `messages` (no tools offered).
 *
 * @param messages What to summarise.
 * @param options Provider, prompt and instructions.
 * @returns The summary text and the request's usage.
 */
export async function summarise(
  messages: readonly Message[],
  options: SummariseOptions,
): Promise<SummaryReply> {
  const task = SUMMARY_TASKS[options.kind];
  const extra = options.instructions ? `\n\nAdditional instructions: ${options.instructions}` : "";
  const text = `${task}${extra}\n\n<conversation>\n${
    serialiseTranscript(messages)
  }\n</conversation>`;
  const request: ProviderRequest = {
    config: { ...options.provider, reasoning: "off" },
    system: options.systemPrompt,
    messages: [{
      role: "user",
      content: [{ type: "text", text }],
      timestamp: new Date().toISOString(),
    }],
    tools: [],
    signal: options.signal,
    idleTimeoutMs: options.idleTimeoutMs,
  };
  const generator = options.stream(request);
  let step = await generator.next();
  while (!step.done) step = await generator.next();
  if (step.value.stopReason === "aborted") {
    throw new DOMException(`${summaryName(options.kind)} was aborted`, "AbortError");
  }
  const summary = step.value.content.map((b) => (b.type === "text" ? b.text : "")).join("").trim();
  if (!summary) {
    throw new Error(`${summaryName(options.kind)} failed: the model returned an empty summary`);
  }
  return { text: summary, usage: step.value.usage };
}
