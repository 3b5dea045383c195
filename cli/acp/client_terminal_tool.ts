/**
 * `bash` in the ACP client's terminal (`terminal/create`) when it offers
 * one, so the editor shows the command running live in the tool call.
 *
 * @module
 */
import { ResultParts, type Tool, type ToolOutput } from "@panto/lib";
import { DEFAULT_MAX_BYTES } from "@panto/lib/tools";

/** How a command ended in the client's terminal. */
export interface TerminalRun {
  /** What it printed (the tail, when the client cut it). */
  output: string;
  /** Whether the client cut the output to its limit. */
  truncated: boolean;
  /** Its exit code, when it exited. */
  exitCode: number | null;
  /** The signal that ended it, if one did. */
  signal: string | null;
}

/** Runs commands in the client's terminals. */
export interface ClientTerminal {
  /**
   * Runs `command` with `bash -c` in a new terminal, kills it on `signal`,
   * and releases the terminal once it ended.
   *
   * @param command The command line.
   * @param options Working directory, the abort signal, the output limit,
   *   and `onStart`, told the terminal's id as soon as it exists.
   * @returns How it ended.
   */
  run(command: string, options: {
    cwd: string;
    signal: AbortSignal;
    outputByteLimit: number;
    onStart: (terminalId: string) => void;
  }): Promise<TerminalRun>;
}

/**
 * A `bash` with the built-in's declaration that runs in the client's
 * terminal; the call's terminal id goes to `onStart` with its call id.
 *
 * @param bash The built-in `bash` (its declaration is kept).
 * @param terminal The client's terminals.
 * @param options The working directory, the default timeout (seconds) and
 *   who is told each call's terminal.
 * @returns The tool.
 */
export function clientBashTool(
  bash: Tool,
  terminal: ClientTerminal,
  options: {
    cwd: string;
    timeoutSeconds: number;
    onStart: (callId: string, terminalId: string) => void;
  },
): Tool {
  return {
    decl: bash.decl,
    async execute(args, { signal, callId }): Promise<ToolOutput> {
      const seconds = typeof args.timeout === "number" ? args.timeout : options.timeoutSeconds;
      const timeout = AbortSignal.timeout(seconds * 1000);
      const run = await terminal.run(String(args.command), {
        cwd: options.cwd,
        signal: AbortSignal.any([signal, timeout]),
        outputByteLimit: DEFAULT_MAX_BYTES,
        onStart: (terminalId) => options.onStart(callId, terminalId),
      });
      signal.throwIfAborted();
      const body =
        [run.output.trimEnd(), run.truncated ? "[Only the end of the output is shown.]" : ""]
          .filter(Boolean).join("\n\n") || "(no output)";
      const ending = endingOf(run, timeout.aborted, seconds);
      return ending ? ResultParts.error(`${body}\n\n${ending}`) : ResultParts.fromText(body);
    },
  };
}

/** The last paragraph of a command that did not exit with 0, worded as the built-in `bash` words it. */
function endingOf(run: TerminalRun, timedOut: boolean, seconds: number): string | undefined {
  if (timedOut) return `The command timed out after ${seconds} s and was killed.`;
  if (run.signal) return `The command was killed by ${run.signal}.`;
  if (run.exitCode !== null && run.exitCode !== 0) return `Exit code: ${run.exitCode}`;
  return undefined;
}
