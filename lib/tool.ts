import type { ResultPart } from "./content.ts";

/** A JSON Schema object describing a tool's arguments. */
export type JsonSchema = Record<string, unknown>;

/**
 * What the model is told about a tool.
 *
 * @example A declaration
 * ```ts
 * import type { ToolDecl } from "@panto/lib";
 * const decl: ToolDecl = {
 *   name: "read",
 *   description: "Read a file",
 *   inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
 * };
 * console.assert(decl.name === "read");
 * ```
 */
export interface ToolDecl {
  /**
   * Name: 1–128 characters, without whitespace or control characters
   * (registration throws a `ToolRegistrationError` otherwise). Names of 1–64
   * characters of `[A-Za-z0-9_-]` are sent as they are; others are encoded
   * for the wire (e.g. `mcp.read` → `mcp_read`) and decoded back.
   */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: JsonSchema;
}

/** Passed to {@linkcode Tool.execute}. */
export interface ToolContext {
  /** Aborted when the run is cancelled; long-running tools must stop. */
  signal: AbortSignal;
  /** The id of the call being answered. */
  callId: string;
  /**
   * Reports progress while the tool runs (e.g. output so far): each call
   * emits one `tool_progress` event with what it is given (text becomes one
   * text part). Calls after the tool returned or after an abort are
   * dropped. The model sees only the final result. The agent always passes
   * it; it is optional so a tool can be called directly, as in tests.
   */
  onUpdate?: (partial: ResultPart[] | string) => void;
}

/**
 * What a tool returns: parts, or parts flagged as an error. A thrown error
 * also becomes an error result the model sees.
 */
export type ToolOutput = ResultPart[] | { parts: ResultPart[]; isError?: boolean };

/**
 * A tool the model can call.
 *
 * @example An echo tool
 * ```ts
 * import { ResultParts, type Tool } from "@panto/lib";
 * const echo: Tool = {
 *   decl: { name: "echo", description: "Echo text", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
 *   execute: (args) => ResultParts.fromText(String(args.text)),
 * };
 * console.assert(echo.decl.name === "echo");
 * ```
 */
export interface Tool {
  /** The declaration sent to the model. */
  decl: ToolDecl;
  /**
   * Runs the call. Arguments have already been checked against
   * `decl.inputSchema`.
   */
  execute(args: Record<string, unknown>, ctx: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/**
 * A provider of many tools (e.g. an MCP server). A registered source is
 * asked for its tools once, at the start of the next run (after the user
 * message is added); its tools then stay registered. A source that fails
 * to list is asked again at the start of the following run.
 *
 * @example A static source
 * ```ts
 * import type { ToolSource } from "@panto/lib";
 * const source: ToolSource = { name: "none", tools: () => [] };
 * console.assert(source.name === "none");
 * ```
 */
export interface ToolSource {
  /** A name for error messages. */
  name: string;
  /** The tools this source offers (asked once, when a run first loads the source). */
  tools(): readonly Tool[] | Promise<readonly Tool[]>;
}

/** One call the model made, as a hook sees it (the tool's registered name). */
export interface ToolCall {
  /** The provider-assigned call id. */
  id: string;
  /** The tool's registered name. */
  name: string;
  /** The arguments, already checked against the tool's schema. */
  input: Record<string, unknown>;
}

/**
 * The result of one call: the parts the model will see and whether they
 * are an error.
 *
 * @example An error result
 * ```ts
 * import type { ToolCallResult } from "@panto/lib";
 * const result: ToolCallResult = { parts: [{ type: "text", text: "no such file" }], isError: true };
 * console.assert(result.isError);
 * ```
 */
export interface ToolCallResult {
  /** Parts the model will see. */
  parts: ResultPart[];
  /** True when the call failed. */
  isError: boolean;
}

/** Passed to a {@linkcode BeforeToolCallHook}. */
export interface BeforeToolCallContext {
  /** The call (a copy: changing it has no effect; return `input` instead). */
  call: ToolCall;
  /** The declaration of the tool about to run. */
  tool: ToolDecl;
  /** Aborted when the run is cancelled; an approval prompt should close. */
  signal: AbortSignal;
}

/**
 * What a {@linkcode BeforeToolCallHook} decides: run the call (with its own
 * arguments, or with `input` instead), or refuse it with a `reason` the
 * model reads.
 *
 * @example Refuse a call
 * ```ts
 * import type { ToolCallDecision } from "@panto/lib";
 * const decision: ToolCallDecision = { action: "deny", reason: "writes outside the project are not allowed" };
 * console.assert(decision.action === "deny");
 * ```
 */
export type ToolCallDecision =
  | { action: "allow"; input?: Record<string, unknown> }
  | { action: "deny"; reason: string };

/**
 * Called before each call of a registered tool, once its arguments passed
 * the schema. Returning nothing allows the call. Changed arguments are
 * checked against the schema again, so a hook cannot crash a tool. A hook
 * that throws becomes an error result; an abort while it is pending ends
 * the call like any other abort.
 *
 * @example Deny `bash` and pin `read` to one file
 * ```ts
 * import type { BeforeToolCallHook } from "@panto/lib";
 * const hook: BeforeToolCallHook = ({ call }) => {
 *   if (call.name === "bash") return { action: "deny", reason: "bash is disabled here" };
 *   if (call.name === "read") return { action: "allow", input: { ...call.input, path: "README.md" } };
 * };
 * const signal = new AbortController().signal;
 * const tool = { name: "bash", description: "", inputSchema: {} };
 * const decision = await hook({ call: { id: "1", name: "bash", input: {} }, tool, signal });
 * console.assert(decision?.action === "deny");
 * ```
 */
export type BeforeToolCallHook = (
  context: BeforeToolCallContext,
) => ToolCallDecision | undefined | void | Promise<ToolCallDecision | undefined | void>;

/** Passed to an {@linkcode AfterToolCallHook}. */
export interface AfterToolCallContext {
  /** The call as the tool received it (after a `beforeToolCall` change). */
  call: ToolCall;
  /** The declaration of the tool that ran. */
  tool: ToolDecl;
  /** What the tool produced. */
  result: ToolCallResult;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
}

/**
 * Called after each call a tool ran (successfully or not); may return a
 * replacement result, or nothing to keep it. Not called for calls that never
 * ran (unknown tool, bad arguments, denied, aborted first). A hook that
 * throws replaces the result with an error result.
 *
 * @example Redact a token from every result
 * ```ts
 * import type { AfterToolCallHook } from "@panto/lib";
 * const hook: AfterToolCallHook = ({ result }) => ({
 *   ...result,
 *   parts: result.parts.map((p) => p.type === "text" ? { ...p, text: p.text.replaceAll("s3cr3t", "***") } : p),
 * });
 * const signal = new AbortController().signal;
 * const out = await hook({
 *   call: { id: "1", name: "cat", input: {} },
 *   tool: { name: "cat", description: "", inputSchema: {} },
 *   result: { parts: [{ type: "text", text: "key=s3cr3t" }], isError: false },
 *   signal,
 * });
 * console.assert(out?.parts[0]?.type === "text" && out.parts[0].text === "key=***");
 * ```
 */
export type AfterToolCallHook = (
  context: AfterToolCallContext,
) => ToolCallResult | undefined | void | Promise<ToolCallResult | undefined | void>;

/** Passed to a {@linkcode ProgressHook}. */
export interface ToolProgressContext {
  /** The call as the tool received it (after a `beforeToolCall` change). */
  call: ToolCall;
  /** The declaration of the running tool. */
  tool: ToolDecl;
  /** What the tool reported (`ctx.onUpdate`), text as one text part. */
  partial: ResultPart[];
}

/**
 * Called, synchronously, for each progress report of a running tool,
 * before it becomes a `tool_progress` event: may return replacement parts
 * (e.g. with a secret redacted, as `afterToolCall` does for the result),
 * nothing to keep them, or `null` to drop the report. A hook that throws
 * drops it too: a report it could not redact never reaches the UI.
 *
 * @example Redact a token from progress reports
 * ```ts
 * import type { ProgressHook } from "@panto/lib";
 * const hook: ProgressHook = ({ partial }) =>
 *   partial.map((p) => p.type === "text" ? { ...p, text: p.text.replaceAll("s3cr3t", "***") } : p);
 * const out = hook({
 *   call: { id: "1", name: "cat", input: {} },
 *   tool: { name: "cat", description: "", inputSchema: {} },
 *   partial: [{ type: "text", text: "key=s3cr3t" }],
 * });
 * console.assert(Array.isArray(out) && out[0]?.type === "text" && out[0].text === "key=***");
 * ```
 */
export type ProgressHook = (context: ToolProgressContext) => ResultPart[] | null | undefined | void;

/**
 * Hooks around every tool call of an `Agent`: pass them as
 * `new Agent({ hooks })` or replace them with `agent.setHooks(hooks)`.
 *
 * @example Log every call
 * ```ts
 * import type { ToolHooks } from "@panto/lib";
 * const seen: string[] = [];
 * const hooks: ToolHooks = { afterToolCall: ({ call }) => void seen.push(call.name) };
 * console.assert(typeof hooks.afterToolCall === "function");
 * ```
 */
export interface ToolHooks {
  /** Allows, denies or changes each call before it runs. */
  beforeToolCall?: BeforeToolCallHook;
  /** Rewrites or annotates each result after the tool ran. */
  afterToolCall?: AfterToolCallHook;
  /** Rewrites or drops each progress report of a running tool before it becomes an event. */
  redactProgress?: ProgressHook;
}

/**
 * Helpers to build tool results.
 *
 * @example Text and error results
 * ```ts
 * import { ResultParts } from "@panto/lib";
 * console.assert(ResultParts.fromText("ok")[0]?.type === "text");
 * console.assert(ResultParts.error("boom").isError === true);
 * ```
 */
export const ResultParts: {
  fromText(text: string): ResultPart[];
  image(data: Uint8Array | string, mediaType: string): ResultPart[];
  error(message: string): { parts: ResultPart[]; isError: true };
} = {
  /** One text part. */
  fromText(text: string): ResultPart[] {
    return [{ type: "text", text }];
  },
  /** One image part from bytes or base64. */
  image(data: Uint8Array | string, mediaType: string): ResultPart[] {
    const base64 = typeof data === "string" ? data : data.toBase64();
    return [{ type: "image", mediaType, data: base64 }];
  },
  /** An error result with one text part. */
  error(message: string): { parts: ResultPart[]; isError: true } {
    return { parts: [{ type: "text", text: message }], isError: true };
  },
};
