import type { ResultPart } from "@panto/lib";
import { IMAGE_MEDIA_TYPES } from "../tools/image_types.ts";

/** One content item of an MCP tool result (the fields panto reads). */
export interface McpContent {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
}

/** An MCP `tools/call` result (the fields panto reads). */
export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * An MCP tool result as panto's result parts: text as text; images panto
 * can send as images; embedded resources as their text or image; resource
 * links, audio and other binaries as a line saying what was left out;
 * structured content alone as its JSON.
 *
 * @param result What the server answered.
 * @returns Parts, flagged as an error when the server said so.
 *
 * @example
 * ```ts
 * import { mcpResultParts } from "./mcp_result.ts";
 * const out = mcpResultParts({ content: [{ type: "text", text: "hi" }], isError: true });
 * console.assert(out.isError && out.parts[0]?.type === "text");
 * ```
 */
export function mcpResultParts(result: McpCallResult): { parts: ResultPart[]; isError: boolean } {
  const parts = (result.content ?? []).map(contentPart);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
  }
  if (parts.length === 0) parts.push({ type: "text", text: "(no output)" });
  return { parts, isError: result.isError === true };
}

function contentPart(item: McpContent): ResultPart {
  if (item.type === "text") return { type: "text", text: item.text ?? "" };
  if (item.type === "image" && item.data !== undefined && isSendable(item.mimeType)) {
    return { type: "image", mediaType: item.mimeType!, data: item.data };
  }
  if (item.type === "resource" && item.resource) return resourcePart(item.resource);
  if (item.type === "resource_link") {
    return { type: "text", text: `Resource link: ${item.name ?? ""} <${item.uri ?? ""}>`.trim() };
  }
  return omitted(item.type, item.mimeType, item.data);
}

function resourcePart(resource: NonNullable<McpContent["resource"]>): ResultPart {
  const type = resource.mimeType ? ` (${resource.mimeType})` : "";
  if (resource.text !== undefined) {
    return { type: "text", text: `Resource <${resource.uri}>${type}:\n${resource.text}` };
  }
  if (resource.blob !== undefined && isSendable(resource.mimeType)) {
    return { type: "image", mediaType: resource.mimeType!, data: resource.blob };
  }
  return omitted(`resource <${resource.uri}>`, resource.mimeType, resource.blob);
}

function isSendable(mimeType: string | undefined): boolean {
  return mimeType !== undefined && IMAGE_MEDIA_TYPES.includes(mimeType);
}

/** What the model is told instead of content it cannot be sent. */
function omitted(
  what: string,
  mimeType: string | undefined,
  base64: string | undefined,
): ResultPart {
  const size = base64 === undefined ? "" : `, ${Math.floor(base64.length * 3 / 4)} bytes`;
  return { type: "text", text: `[${what}${mimeType ? ` ${mimeType}` : ""}${size} not shown]` };
}
