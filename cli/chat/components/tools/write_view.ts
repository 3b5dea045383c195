/**
 * The write tool's view: the path and line count in the header, the first
 * lines of the content under it (all of it expanded).
 *
 * @module
 */
import type { Theme } from "@panto/tui";
import {
  counted,
  head,
  indented,
  stringArg,
  type ToolCallState,
  type ToolRenderer,
} from "./tool_renderer.ts";

function lineCount(content: string): number {
  if (content === "") return 0;
  return content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
}

/** The write renderer. */
export const writeView: ToolRenderer = {
  summary(call) {
    const path = stringArg(call, "path") ?? "";
    const content = stringArg(call, "content");
    return content === undefined ? path : `${path} (${counted(lineCount(content), "line")})`;
  },
  body(call: ToolCallState, width: number, theme: Theme): string[] {
    if (call.isError) return head(indented(call.result, width, theme, "error"), call, theme, width);
    const content = (stringArg(call, "content") ?? "").replace(/\n$/, "");
    return head(indented(content, width, theme, "toolOutput"), call, theme, width);
  },
};
