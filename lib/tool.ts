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
  /** Name: 1–64 characters of `[A-Za-z0-9_-]`. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: JsonSchema;
}

/** Passed to {@linkcode Tool.execute}. */
export interface ToolContext {
  /** Aborted when the turn is cancelled; long-running tools must stop. */
  signal: AbortSignal;
  /** The id of the call being answered. */
  callId: string;
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
 * A provider of many tools (e.g. an MCP server), asked for its tools at the
 * start of each run.
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
  /** The tools this source offers now. */
  tools(): readonly Tool[] | Promise<readonly Tool[]>;
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
