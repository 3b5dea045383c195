/**
 * The built-in system prompt: who panto is and how to use its tools.
 *
 * @param cwd The working directory.
 * @param toolNames The tools offered.
 * @returns The prompt.
 */
export function defaultSystemPrompt(cwd: string, toolNames: readonly string[]): string {
  return [
    "You are panto, a coding agent working in the user's project from their terminal.",
    "Be direct and concise. Read files before changing them, make the smallest change that solves the task, and say what you did.",
    toolNames.length
      ? `Tools available: ${toolNames.join(", ")}. Paths are relative to the working directory.`
      : "No tools are available in this session.",
    `Working directory: ${cwd}`,
    `Today's date: ${new Date().toISOString().slice(0, 10)}`,
  ].join("\n");
}
