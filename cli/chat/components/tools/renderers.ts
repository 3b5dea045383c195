/**
 * Which renderer draws which built-in tool; every other tool gets the generic view.
 *
 * @module
 */
import { bashView, shownOnlyBashView } from "./bash_view.ts";
import { editView } from "./edit_view.ts";
import { genericView } from "./generic_view.ts";
import { findView, grepView, lsView } from "./listing_view.ts";
import { readView } from "./read_view.ts";
import type { ToolRenderer } from "./tool_renderer.ts";
import { writeView } from "./write_view.ts";

const BUILT_IN: ReadonlyMap<string, ToolRenderer> = new Map([
  ["bash", bashView],
  // A `!command` (`!!command`: not sent to the model) typed by the user runs through the bash tool.
  ["!", bashView],
  ["!!", shownOnlyBashView],
  ["edit", editView],
  ["write", writeView],
  ["read", readView],
  ["ls", lsView],
  ["find", findView],
  ["grep", grepView],
]);

/**
 * The renderer for a tool name.
 *
 * @param name The tool's registered name.
 * @returns Its renderer, or the generic one.
 */
export function rendererFor(name: string): ToolRenderer {
  return BUILT_IN.get(name) ?? genericView;
}
