import type { ResultPart } from "../content.ts";
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES } from "../tools/image_types.ts";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  formatBytes,
  truncateText,
  truncationNotice,
} from "../tools/truncate.ts";

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

/** Decoded bytes of images one result may send in all; later ones are described instead. */
const MAX_RESULT_IMAGE_BYTES = 2 * MAX_IMAGE_BYTES;

/**
 * An MCP tool result as panto's result parts: text as text; images panto
 * can send as images; embedded resources as their text or image; resource
 * links, audio and other binaries as a line saying what was left out;
 * structured content alone as its JSON. The text is cut to the built-in
 * tools' limits (2000 lines, 50 KB, for all its parts together) with the
 * note bash gives; an image over 10 MB, or past 20 MB of images in all, is
 * described instead (a server once answered with 50 MB, all of which went
 * into the request and the session).
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
  return { parts: withinLimits(parts), isError: result.isError === true };
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
  why = "",
): { type: "text"; text: string } {
  const size = base64 === undefined ? "" : `, ${decodedSize(base64)} bytes`;
  return {
    type: "text",
    text: `[${what}${mimeType ? ` ${mimeType}` : ""}${size} not shown${why}]`,
  };
}

function decodedSize(base64: string): number {
  return Math.floor(base64.length * 3 / 4);
}

/** The parts cut to the limits: text by lines and bytes over all parts, images by size. */
function withinLimits(parts: readonly ResultPart[]): ResultPart[] {
  const text = new TextBudget();
  let imageBytes = 0;
  const kept: ResultPart[] = [];
  const addText = (part: string) => {
    const shown = text.take(part);
    if (shown !== undefined) kept.push({ type: "text", text: shown });
  };
  for (const part of parts) {
    if (part.type === "text") {
      addText(part.text);
      continue;
    }
    const size = decodedSize(part.data);
    if (size <= MAX_IMAGE_BYTES && imageBytes + size <= MAX_RESULT_IMAGE_BYTES) {
      imageBytes += size;
      kept.push(part);
      continue;
    }
    const limit = size > MAX_IMAGE_BYTES
      ? `the ${formatBytes(MAX_IMAGE_BYTES)} limit for an image`
      : `the ${formatBytes(MAX_RESULT_IMAGE_BYTES)} limit for a result's images`;
    addText(omitted("image", part.mediaType, part.data, `: over ${limit}`).text);
  }
  const notice = text.notice();
  if (notice) kept.push({ type: "text", text: notice });
  return kept;
}

/** The text limits of the built-in tools, spent over the text parts of one result in order. */
class TextBudget {
  #lines = DEFAULT_MAX_LINES;
  #bytes = DEFAULT_MAX_BYTES;
  #totalLines = 0;
  #totalBytes = 0;
  #shownLines = 0;
  #partial = false;
  #cut = false;

  /** The part's text as far as the budget goes, `undefined` once it is spent. */
  take(text: string): string | undefined {
    if (this.#lines <= 0 || this.#bytes <= 0) {
      this.#count(text);
      if (text !== "") this.#cut = true;
      return undefined;
    }
    const kept = truncateText(text, { maxLines: this.#lines, maxBytes: this.#bytes });
    this.#totalLines += kept.totalLines;
    this.#totalBytes += encoder.encode(text).length;
    const lines = kept.lastLine - kept.firstLine + 1;
    this.#shownLines += lines;
    this.#lines -= lines;
    // The next part starts on a line of its own.
    this.#bytes -= encoder.encode(kept.text).length + 1;
    if (kept.truncated) {
      this.#cut = true;
      this.#partial ||= kept.partialLine;
      this.#lines = 0;
    }
    return kept.text;
  }

  /** What was left out, or `undefined` when nothing was. */
  notice(): string | undefined {
    if (!this.#cut) return undefined;
    const last = this.#shownLines;
    const shown = this.#partial && last === 1 ? "the start of line 1" : `lines 1-${last}`;
    return truncationNotice(
      shown,
      this.#totalLines,
      this.#totalBytes,
      "The rest was left out: ask the tool for less if it can (a narrower query, a page, a limit).",
    );
  }

  #count(text: string): void {
    let lines = 0;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
    this.#totalLines += lines + (text === "" || text.endsWith("\n") ? 0 : 1);
    this.#totalBytes += encoder.encode(text).length;
  }
}

const encoder = new TextEncoder();
