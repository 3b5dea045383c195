// The persisted shapes, each defined once. The TypeScript types stay in
// content.ts/message.ts/usage.ts (where their field docs live); the checks
// at the bottom fail the type check when a schema and its type disagree on
// any field, so a field added to a type cannot be forgotten here.
//
// Every record object is loose: a field this code does not know (written by a
// newer panto, or by an embedder) is kept on load and written back as it was.
//
// Imported only through record_schemas.ts (loaded with the first read).
import { z } from "zod";
import { type ApiName, REASONING_LEVELS } from "../config.ts";
import type { ContentBlock, ResultPart } from "../content.ts";
import { type Message, ROLES, STOP_REASONS } from "../message.ts";
import type { Usage } from "../usage.ts";
import type { MigrationFence } from "./migration_fence.ts";
import type { SessionInfo, SessionState, WireIdentity } from "./types.ts";

const textBlock = z.looseObject({ type: z.literal("text"), text: z.string() });
const imageBlock = z.looseObject({
  type: z.literal("image"),
  mediaType: z.string(),
  data: z.string(),
});

/** A tool result part: text or image. */
export const resultPartSchema = z.discriminatedUnion("type", [textBlock, imageBlock]);

/** Any content block. */
export const contentBlockSchema = z.discriminatedUnion("type", [
  textBlock,
  imageBlock,
  z.looseObject({
    type: z.literal("thinking"),
    thinking: z.string(),
    signature: z.string().exactOptional(),
  }),
  z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() }),
  z.looseObject({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    invalidInput: z.string().exactOptional(),
  }),
  z.looseObject({
    type: z.literal("tool_result"),
    toolUseId: z.string(),
    toolName: z.string(),
    content: z.array(resultPartSchema),
    isError: z.boolean(),
    durationMs: z.number().exactOptional(),
  }),
  z.looseObject({
    type: z.literal("system"),
    text: z.string(),
    mode: z.enum(["append", "replace"]),
  }),
  z.looseObject({
    type: z.literal("compaction_summary"),
    summary: z.string(),
    tokensBefore: z.number().exactOptional(),
    keptMessages: z.number().exactOptional(),
  }),
]);

/** Token usage of one assistant message. */
export const usageSchema = z.looseObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  reasoningTokens: z.number(),
});

/**
 * A protocol name: a built-in style, or one an embedder registered. Any
 * non-empty string passes either way; a plain string schema (no union, no
 * transform) keeps zod on its fast path, which is most of a load's checking.
 */
const apiNameSchema: z.ZodType<ApiName> = z.string().min(1);

/** One message of a conversation. */
export const messageSchema = z.looseObject({
  role: z.enum(ROLES),
  content: z.array(contentBlockSchema),
  timestamp: z.string(),
  stopReason: z.enum(STOP_REASONS).exactOptional(),
  errorMessage: z.string().exactOptional(),
  usage: usageSchema.exactOptional(),
  api: apiNameSchema.exactOptional(),
  model: z.string().exactOptional(),
  metadata: z.string().exactOptional(),
});

/** Who produced a message, as seen on the wire. */
export const wireSchema = z.looseObject({
  apiStyle: apiNameSchema,
  baseUrl: z.string(),
  model: z.string(),
  reasoning: z.enum(REASONING_LEVELS),
});

/** What a session is doing. */
export const sessionStateSchema = z.discriminatedUnion("status", [
  z.looseObject({ status: z.literal("idle") }),
  z.looseObject({
    status: z.enum(["running", "interrupted"]),
    turnId: z.string(),
    since: z.string(),
    last: z.enum(["prompt", "tool_call", "tool_result"]),
  }),
  z.looseObject({ status: z.literal("error"), message: z.string() }),
]);

/** What a store tells about one session (the JSONL store caches it in a sidecar). */
export const sessionInfoSchema = z.looseObject({
  id: z.string(),
  name: z.string().exactOptional(),
  created: z.string(),
  modified: z.string(),
  messageCount: z.number(),
  lastUserMessage: z.string(),
  firstUserMessage: z.string().exactOptional(),
  wire: wireSchema.exactOptional(),
  cwd: z.string().exactOptional(),
  ownerId: z.string().exactOptional(),
  parentSessionId: z.string().exactOptional(),
  state: sessionStateSchema.exactOptional(),
  unreadable: z.string().exactOptional(),
});

/**
 * `T` without index signatures, all the way down: a loose schema's output
 * has `[key: string]: unknown` on every object, which the types do not.
 */
/** The first line of a session file (jsonl_format.ts). */
export const headerSchema = z.looseObject({
  type: z.literal("session"),
  version: z.number(),
  id: z.string(),
  created: z.string(),
  cwd: z.string().exactOptional(),
  metadata: z.string().exactOptional(),
  name: z.string().exactOptional(),
  ownerId: z.string().exactOptional(),
  parentSessionId: z.string().exactOptional(),
});

/** A JSONL store's sidecar `<id>.meta.json` (jsonl_store.ts checks its version). */
export const sidecarSchema = z.object({
  version: z.number(),
  size: z.number(),
  mtimeMs: z.number(),
  info: sessionInfoSchema,
});

/** The fence as stored (a JSON file, a row's JSON; migration_fence.ts). */
export const migrationFenceSchema: z.ZodType<MigrationFence> = z.object({
  target: z.string(),
  since: z.string(),
  done: z.boolean(),
});

type Known<T> = T extends readonly (infer E)[] ? Known<E>[]
  : T extends object ? { [K in keyof T as string extends K ? never : K]: Known<T[K]> }
  : T;

/** True only when `A` and `B` are the same type (optional fields and all). */
type Same<A, B> = (<G>() => G extends A ? 1 : 2) extends (<G>() => G extends B ? 1 : 2) ? true
  : false;

/** Compiles only when the schema's output is exactly `T`. */
type Describes<S extends z.ZodType, T> = Same<Known<z.output<S>>, Known<T>>;

// Each line is a compile-time proof; a drift makes the type check fail here.
const _checks: [
  Describes<typeof resultPartSchema, ResultPart>,
  Describes<typeof contentBlockSchema, ContentBlock>,
  Describes<typeof usageSchema, Usage>,
  Describes<typeof messageSchema, Message>,
  Describes<typeof wireSchema, WireIdentity>,
  Describes<typeof sessionStateSchema, SessionState>,
  Describes<typeof sessionInfoSchema, SessionInfo>,
] = [true, true, true, true, true, true, true];
