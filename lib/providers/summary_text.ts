/**
 * How a compaction summary reaches the model, the same on every wire API,
 * so a conversation reads alike after a switch of provider.
 *
 * @param summary The summary.
 * @returns The text sent in its place.
 *
 * @example
 * ```ts
 * import { summaryText } from "./summary_text.ts";
 * console.assert(summaryText("We fixed the parser.").includes("<summary>\nWe fixed the parser.\n</summary>"));
 * ```
 */
export function summaryText(summary: string): string {
  return `The conversation so far was summarised to save space:\n<summary>\n${summary}\n</summary>`;
}
