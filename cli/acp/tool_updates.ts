/**
 * How panto's tool calls look to an ACP client: kind, title, locations
 * and content.
 *
 * @module
 */
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import type { ResultPart } from "@panto/lib";
import { isAbsolute, join } from "node:path";

/** The ACP kind of each built-in tool (others are `other`). */
const KINDS: Readonly<Record<string, ToolKind>> = {
  read: "read",
  write: "edit",
  edit: "edit",
  bash: "execute",
  grep: "search",
  find: "search",
  ls: "search",
};

/** The tools whose calls change a file: their content is a diff. */
export const FILE_CHANGING_TOOLS: ReadonlySet<string> = new Set(["write", "edit"]);

/**
 * The ACP kind of a tool, so the client can pick an icon.
 *
 * @param name The tool's registered name.
 * @returns Its kind.
 */
export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? "other";
}

/**
 * A one-line title: the tool and what it works on (`read notes.txt`,
 * `bash: ls -la`).
 *
 * @param name The tool's name.
 * @param input Its arguments.
 * @returns The title.
 */
export function toolTitle(name: string, input: Record<string, unknown>): string {
  if (typeof input.command === "string") return `${name}: ${firstLine(input.command)}`;
  const target = [input.path, input.pattern].filter((v) => typeof v === "string").join(" ");
  return target ? `${name} ${target}` : name;
}

/**
 * The file a call works on, as an absolute path (so the client can follow
 * along), with its first line when the call names one.
 *
 * @param input The call's arguments.
 * @param cwd The session's working directory.
 * @returns Zero or one location.
 */
export function toolLocations(input: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  const path = targetPath(input, cwd);
  if (path === undefined) return [];
  return [typeof input.offset === "number" ? { path, line: input.offset } : { path }];
}

/**
 * The absolute path a call names in its `path` argument.
 *
 * @param input The call's arguments.
 * @param cwd The session's working directory.
 * @returns The path, or undefined when the call names none.
 */
export function targetPath(input: Record<string, unknown>, cwd: string): string | undefined {
  if (typeof input.path !== "string" || input.path === "") return undefined;
  return isAbsolute(input.path) ? input.path : join(cwd, input.path);
}

/**
 * A result's parts as tool-call content (text, images).
 *
 * @param parts What the tool returned (or reported so far).
 * @returns The content.
 */
export function resultContent(parts: readonly ResultPart[]): ToolCallContent[] {
  return parts.map((part) => ({
    type: "content",
    content: part.type === "text"
      ? { type: "text", text: part.text }
      : { type: "image", mimeType: part.mediaType, data: part.data },
  }));
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length < text.length ? `${line} …` : line;
}
