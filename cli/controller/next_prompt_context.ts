import type { BranchSummary, TextBlock } from "@panto/lib";
import type { Spend } from "./session_cost.ts";

/** What goes with the next prompt, after its own text and files. */
export interface TakenContext {
  /** `!shell` output, then the branch summary. */
  blocks: TextBlock[];
  /** What the branch summary's request used: paid for with this prompt. */
  spent?: BranchSummary["spent"];
}

/**
 * What the next prompt carries besides what the user typed: the output of
 * `!shell` commands run since the last prompt, and the summary of the
 * branch the last move in the session tree left.
 */
export class NextPromptContext {
  #shellOutput: string[] = [];
  #branchSummary: BranchSummary | undefined;

  /**
   * Keeps a `!shell` command's output for the next prompt.
   *
   * @param command The command line.
   * @param output What it printed.
   */
  addShellOutput(command: string, output: string): void {
    this.#shellOutput.push(
      `The user ran \`${command}\`:\n<shell_output>\n${output}\n</shell_output>`,
    );
  }

  /**
   * Sets (or drops, with `undefined`) the branch summary for the next prompt
   * of this session.
   *
   * @param summary The summary of the branch left.
   */
  setBranchSummary(summary: BranchSummary | undefined): void {
    this.#branchSummary = summary;
  }

  /** What the branch summary waiting for the next prompt used (paid for already), if any. */
  pendingSpend(): Spend[] {
    return this.#branchSummary === undefined ? [] : [this.#branchSummary.spent];
  }

  /**
   * Takes all of it for the prompt being sent.
   *
   * @returns The blocks to attach, and the summary's spend.
   */
  take(): TakenContext {
    const blocks = this.#shellOutput.splice(0).map(textBlock);
    const branch = this.#branchSummary;
    this.#branchSummary = undefined;
    if (branch === undefined) return { blocks };
    blocks.push(textBlock(branchSummaryText(branch.summary)));
    return { blocks, spent: branch.spent };
  }
}

/** A branch summary as it follows the next prompt. */
function branchSummaryText(summary: string): string {
  return "<branch_summary>\nBefore this prompt the user left a branch of this conversation " +
    `to continue from here. What happened on that branch:\n${summary}\n</branch_summary>`;
}

function textBlock(text: string): TextBlock {
  return { type: "text", text };
}
