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
export { messageText } from "./message.ts";
export { Conversation } from "./conversation.ts";
export * from "./config.ts";
export type * from "./events.ts";
export * from "./errors.ts";
export type { JsonSchema, Tool, ToolContext, ToolDecl, ToolOutput, ToolSource } from "./tool.ts";
export { ResultParts } from "./tool.ts";
export type * from "./session/types.ts";
export { Session } from "./session/session.ts";
export { NullStore } from "./session/null_store.ts";
export { match, type ModelChoice, wireIdentity } from "./session/match.ts";
