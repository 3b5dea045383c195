/**
 * `@panto/lib`: run an LLM agent loop with tools and persistent sessions,
 * and operate on conversations by hand.
 *
 * @example Build a conversation
 * ```ts
 * import { Conversation } from "@panto/lib";
 * const conversation = new Conversation();
 * conversation.addUserMessage("Hello");
 * console.assert(conversation.messages.length === 1);
 * ```
 *
 * @module
 */
export * from "./usage.ts";
export type * from "./content.ts";
export type { Message, Role, StopReason } from "./message.ts";
export { messageText, ROLES, runContinuesAfter, STOP_REASONS } from "./message.ts";
export { type AssistantDetails, Conversation } from "./conversation.ts";
export * from "./config.ts";
export type * from "./events.ts";
export * from "./errors.ts";
export type {
  AfterToolCallContext,
  AfterToolCallHook,
  BeforeToolCallContext,
  BeforeToolCallHook,
  JsonSchema,
  ProgressHook,
  Tool,
  ToolCall,
  ToolCallDecision,
  ToolCallResult,
  ToolContext,
  ToolDecl,
  ToolHooks,
  ToolOutput,
  ToolProgressContext,
  ToolSource,
} from "./tool.ts";
export { ResultParts } from "./tool.ts";
export {
  defineTool,
  type DefineToolOptions,
  type ToolArgsIssue,
  type ToolArgsResult,
  type ToolArgsSchema,
} from "./define_tool.ts";
export type * from "./session/types.ts";
export { Session } from "./session/session.ts";
export type { StoredTree, TreeEntry, TreeNode } from "./session/tree.ts";
export { pathTo } from "./session/tree.ts";
export { NullStore } from "./session/null_store.ts";
export { type ModelChoice, modelsMatchingSession, wireIdentity } from "./session/session_models.ts";
export { redactUrl } from "./session/redact_url.ts";
export { looksLikeSecret, redactSecrets } from "./redact_secrets.ts";
export {
  Agent,
  type AgentOptions,
  type BranchSummary,
  type CompactionResult,
  type CompactOptions,
  type RunOptions,
  type SummarySpend,
  type UserMessage,
} from "./agent.ts";
export {
  AgentSession,
  type AgentSessionActivity,
  AgentSessionBusyError,
  type AgentSessionEvent,
  type AgentSessionHooks,
  type PromptOutcome,
  type QueueState,
} from "./agent_session.ts";
export type {
  AssistantResult,
  ProviderRequest,
  ProviderStreamEvent,
  StreamMessage,
} from "./providers/provider.ts";
export { registerProvider } from "./providers/registry.ts";
export { DEFAULT_MAX_RETRIES } from "./providers/retry.ts";
export {
  type ScriptedBlock,
  type ScriptedProvider,
  scriptedProvider,
  type ScriptedReply,
  type ScriptedTurn,
} from "./providers/scripted_provider.ts";
export {
  type ParseProviderStream,
  type ProviderHttpRequest,
  providerStream,
} from "./providers/stream_provider.ts";
export { type SseEvent, SseParser } from "./providers/sse.ts";
export { isAbortError, type SseRequest, streamSse } from "./providers/http.ts";
export type { Stream, StreamState } from "./stream.ts";
export * from "./session/errors.ts";
export { OwnerView } from "./session/owner_view.ts";
export { type MigrationFence, SessionStoreMigratedError } from "./session/migration_fence.ts";
export { type Price, Pricing, PricingRegistry } from "./pricing.ts";
export { estimateContextTokens, estimateTokens } from "./compaction.ts";
