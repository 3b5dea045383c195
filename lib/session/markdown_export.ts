import type { ContentBlock } from "../content.ts";
import type { Conversation } from "../conversation.ts";
import type { Message } from "../message.ts";
import type { SessionInfo } from "./types.ts";

const ROLE_HEADINGS: Record<Message["role"], string> = {
  system: "System",
  user: "User",
  assistant: "Assistant",
  tool: "Tool",
};

/**
 * Renders a session as Markdown: a title, one heading per message, tool
 * calls and results as fenced blocks (fences longer than any backtick run in
 * their content, so nothing breaks out), images as placeholders.
 *
 * @param info The session's info (id, name, dates).
 * @param conversation Its conversation.
 * @returns The document.
 */
export function exportMarkdown(info: SessionInfo, conversation: Conversation): string {
  const title = info.name || info.firstUserMessage || info.lastUserMessage || `Session ${info.id}`;
  const out = [
    `# ${oneLine(title)}`,
    "",
    `- Session: \`${info.id}\``,
    `- Created: ${info.created}`,
    `- Modified: ${info.modified}`,
  ];
  if (info.cwd) out.push(`- Directory: \`${oneLine(info.cwd)}\``);
  if (info.wire) {
    out.push(`- Model: ${info.wire.model} (${info.wire.apiStyle}, ${info.wire.baseUrl})`);
  }
  for (const message of conversation.messages) {
    out.push("", `## ${heading(message)}`, "");
    for (const block of message.content) out.push(...renderBlock(block), "");
    if (message.errorMessage) out.push(`> Error: ${oneLine(message.errorMessage)}`, "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function heading(message: Message): string {
  if (message.content.some((b) => b.type === "compaction_summary")) return "Compaction summary";
  const system = message.content.find((b) => b.type === "system");
  if (system?.type === "system") return `System (${system.mode})`;
  const stop = message.stopReason === "aborted" || message.stopReason === "error"
    ? ` (${message.stopReason})`
    : "";
  return `${ROLE_HEADINGS[message.role]}${stop}`;
}

function renderBlock(block: ContentBlock): string[] {
  switch (block.type) {
    case "text":
      return [block.text];
    case "system":
      return [block.text];
    case "compaction_summary":
      return [block.summary];
    case "image":
      return [imagePlaceholder(block.mediaType, block.data)];
    case "thinking":
      return block.thinking.split("\n").map((line) => `> ${line}`);
    case "redacted_thinking":
      return ["_(redacted thinking)_"];
    case "tool_use":
      return [
        `**Tool call** \`${block.name}\` (\`${block.id}\`)`,
        "",
        ...fenced("json", block.invalidInput ?? JSON.stringify(block.input, null, 2)),
      ];
    case "tool_result":
      return [
        `**Tool result${
          block.isError ? " (error)" : ""
        }** \`${block.toolName}\` (\`${block.toolUseId}\`)`,
        "",
        ...block.content.flatMap((part) =>
          part.type === "text"
            ? fenced("text", part.text)
            : [imagePlaceholder(part.mediaType, part.data)]
        ),
      ];
  }
}

function fenced(language: string, body: string): string[] {
  const longestRun = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return [`${fence}${language}`, body, fence];
}

function imagePlaceholder(mediaType: string, base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4);
  return `_[image: ${mediaType}, ${bytes} bytes]_`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
