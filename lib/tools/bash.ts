import { ResultParts, type Tool, type ToolOutput } from "../tool.ts";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  formatBytes,
  truncateText,
  truncationNotice,
} from "./truncate.ts";
import {
  type CommandLine,
  sandboxedCommand,
  SandboxError,
  type SandboxSettings,
} from "./sandbox.ts";

/** Output kept in memory while a command runs; older output is dropped (only the tail is shown). */
const MAX_BUFFERED_CHARS = 4 * DEFAULT_MAX_BYTES;
/** How long to wait for output still in the pipes after the shell exits (background jobs may hold them open). */
const DRAIN_GRACE_MS = 200;
/** How long a process group gets after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 500;
/** Progress is reported at most this often while output arrives. */
const PROGRESS_INTERVAL_MS = 100;
/** Most characters of output tail one progress report carries. */
const PROGRESS_CHARS = 8 * 1024;

/** Options for {@linkcode bashTool}. */
export interface BashToolOptions {
  /** The working directory commands run in. */
  root: string;
  /** Default timeout in seconds (a call may pass its own). Default 120. */
  timeoutSeconds?: number;
  /** The shell program (default `bash`), run as `<shell> -c <command>`. */
  shell?: string;
  /** Run commands in the OS sandbox (`tools.sandbox`; the user's `!command` never is). */
  sandbox?: BashSandbox;
}

/** The sandbox for {@linkcode bashTool}: its settings, and what it may write and must hide. */
export interface BashSandbox {
  /** `tools.sandbox`. */
  settings: SandboxSettings;
  /** Writable besides the working directory (`tools.allowedPaths`). */
  writable: readonly string[];
  /** Replaced by empty directories (`$PANTO_HOME`). */
  hidden: readonly string[];
}

/**
 * The `bash` tool: runs a command with `bash -c` in the working directory, in
 * its own process group (so a timeout or an abort kills everything it
 * started), and returns stdout and stderr interleaved as they arrived, the
 * tail kept when long, plus the exit code when it is not 0. Stdin is empty.
 * While it runs, the tail of the output so far is reported through
 * `onUpdate` (at most every 100 ms); output produced before a timeout or an
 * abort is kept in the result.
 * Commands inherit panto's environment — the user's, less the API key
 * variables the program withheld at start (`withholdFromCommands` in
 * `cli/shared/env.ts`) — and are not confined to the working directory.
 *
 * @param options Working directory, default timeout, shell.
 * @returns The tool.
 *
 * @example
 * ```ts
 * import { bashTool } from "./bash.ts";
 * const signal = new AbortController().signal;
 * const output = await bashTool({ root: "." }).execute({ command: "echo hi" }, { signal, callId: "1" });
 * console.assert(JSON.stringify(output).includes("hi"));
 * ```
 */
export function bashTool(options: BashToolOptions): Tool {
  const defaultTimeout = options.timeoutSeconds ?? 120;
  return {
    decl: {
      name: "bash",
      description:
        `Run a shell command with bash in the working directory and return its output (stdout and stderr together; the last ${DEFAULT_MAX_LINES} lines or ${
          formatBytes(DEFAULT_MAX_BYTES)
        } when longer) and its exit code. Stdin is empty, so commands must not wait for input. Timeout: ${defaultTimeout} s unless you pass timeout (seconds). Prefer the read, grep, find and ls tools to inspect files.`,
      inputSchema: {
        type: "object",
        properties: {
          command: { type: "string", description: "The command line, run with bash -c" },
          timeout: {
            type: "number",
            exclusiveMinimum: 0,
            description: "Timeout in seconds for this command",
          },
        },
        required: ["command"],
        additionalProperties: false,
      },
    },
    async execute(args, { signal, onUpdate }): Promise<ToolOutput> {
      const timeout = typeof args.timeout === "number" ? args.timeout : defaultTimeout;
      const run = await runCommand(
        {
          shell: options.shell ?? "bash",
          cwd: options.root,
          ...(options.sandbox?.settings.enabled ? { sandbox: options.sandbox } : {}),
        },
        String(args.command),
        timeout,
        signal,
        onUpdate,
      );
      return describeRun(run, timeout);
    },
  };
}

interface CommandRun {
  output: CollectedOutput;
  status: Deno.CommandStatus;
  ending: "exited" | "timed out" | "aborted";
}

/** How commands are started: the shell, the directory and the sandbox, if any. */
interface ShellSetup {
  shell: string;
  cwd: string;
  sandbox?: BashSandbox;
}

async function runCommand(
  setup: ShellSetup,
  command: string,
  timeoutSeconds: number,
  signal: AbortSignal,
  onUpdate?: (tail: string) => void,
): Promise<CommandRun> {
  signal.throwIfAborted();
  const child = spawn(setup, command);
  const output = new OutputCollector();
  let progress: ReturnType<typeof setTimeout> | undefined;
  if (onUpdate) {
    // Throttled: a chatty command would otherwise send one event per pipe read.
    output.onAppend = () => {
      progress ??= setTimeout(() => {
        progress = undefined;
        onUpdate(output.tail(PROGRESS_CHARS));
      }, PROGRESS_INTERVAL_MS);
    };
  }
  const reading = Promise.all([output.read(child.stdout), output.read(child.stderr)]);
  let ending: CommandRun["ending"] = "exited";
  let killed: Promise<void> | undefined;
  const stop = (why: CommandRun["ending"]) => {
    if (ending !== "exited") return;
    ending = why;
    killGroup(child, "SIGTERM");
    // The group gets a moment to clean up; whatever is left then is killed outright.
    killed = delay(KILL_GRACE_MS).then(() => killGroup(child, "SIGKILL"));
  };
  // setTimeout fires at once for delays past 2^31-1 ms; such a timeout means "practically never".
  const timer = setTimeout(() => stop("timed out"), Math.min(timeoutSeconds * 1000, 2 ** 31 - 1));
  const onAbort = () => stop("aborted");
  signal.addEventListener("abort", onAbort, { once: true });
  let status: Deno.CommandStatus;
  try {
    status = await child.status;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
  await killed;
  await output.settle(reading, DRAIN_GRACE_MS);
  clearTimeout(progress);
  return { output: output.result(), status, ending };
}

function spawn(setup: ShellSetup, command: string): Deno.ChildProcess {
  const { shell, cwd, sandbox } = setup;
  const line: CommandLine = sandbox
    ? sandboxedCommand(
      sandbox.settings,
      {
        root: cwd,
        writable: sandbox.writable,
        hidden: sandbox.hidden,
      },
      shell,
      command,
    )
    : { command: shell, args: ["-c", command] };
  try {
    // detached: the shell leads a new session and process group, so killing the group reaches grandchildren.
    return new Deno.Command(line.command, {
      args: line.args,
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new Error(
        `panto may not run programs, so the bash tool cannot run ${shell}: start panto with --allow-run`,
      );
    }
    if (error instanceof Deno.errors.NotFound && sandbox) {
      throw new SandboxError(
        "tools.sandbox is on, but bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap) or turn tools.sandbox off; the command was not run",
      );
    }
    if (error instanceof Deno.errors.NotFound) throw new Error(`${shell} was not found on PATH`);
    throw error;
  }
}

function killGroup(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    Deno.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describeRun({ output, status, ending }: CommandRun, timeoutSeconds: number): ToolOutput {
  const body = formatOutput(output);
  if (ending === "timed out") {
    return ResultParts.error(
      `${body}\n\nThe command timed out after ${timeoutSeconds} s and was killed with everything it started. If it needs longer, pass a larger timeout; run servers in the background (cmd > log 2>&1 &).`,
    );
  }
  if (ending === "aborted") {
    return ResultParts.error(`${body}\n\nThe command was aborted and killed.`);
  }
  if (status.signal) {
    return ResultParts.error(`${body}\n\nThe command was killed by ${status.signal}.`);
  }
  if (status.code !== 0) return ResultParts.error(`${body}\n\nExit code: ${status.code}`);
  return ResultParts.fromText(body);
}

/** The last paragraph {@linkcode describeRun} adds when a command did not exit with 0. */
const ENDING =
  /\n\n(?:Exit code: (-?\d+)|The command (timed out) after [^]*|The command was (aborted) and killed\.|The command was killed by (\S+)\.)$/;

/**
 * Splits a bash result into the command's output and a short word on how it
 * ended (`exit 2`, `timed out`, `aborted`, `killed by SIGKILL`); `ending` is
 * undefined for a command that exited with 0 or text that is not a bash result.
 *
 * @param text The result text of a bash call.
 * @returns The output and the ending.
 */
export function splitBashResult(text: string): { output: string; ending: string | undefined } {
  const match = ENDING.exec(text);
  if (!match) return { output: text, ending: undefined };
  const [, code, timedOut, aborted, signal] = match;
  const ending = code !== undefined ? `exit ${code}` : timedOut ?? aborted ?? `killed by ${signal}`;
  return { output: text.slice(0, match.index), ending };
}

function formatOutput(output: CollectedOutput): string {
  if (output.text === "") return "(no output)";
  const kept = truncateText(output.text, { keep: "tail" });
  if (!kept.truncated && output.droppedChars === 0) return output.text.replace(/\n$/, "");
  const lastLine = output.totalLines;
  const firstLine = lastLine - (kept.lastLine - kept.firstLine);
  const shown = kept.partialLine ? `the end of line ${lastLine}` : `lines ${firstLine}-${lastLine}`;
  const notice = truncationNotice(
    shown,
    output.totalLines,
    output.totalBytes,
    "To see other parts, run the command again with its output filtered (| grep …, | head -n …, | tail -n …) or redirected to a file you read with offset/limit.",
  );
  return `${notice}\n${kept.text}`;
}

interface CollectedOutput {
  /** The last part of the output (all of it unless `droppedChars > 0`). */
  text: string;
  droppedChars: number;
  totalBytes: number;
  totalLines: number;
}

/** Collects stdout and stderr in arrival order, keeping only a bounded tail in memory. */
class OutputCollector {
  #chunks: string[] = [];
  #bufferedChars = 0;
  #droppedChars = 0;
  #totalBytes = 0;
  #newlines = 0;
  #endsWithNewline = true;
  #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  /** Called after each piece of output is added. */
  onAppend: (() => void) | undefined;

  async read(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    const decoder = new TextDecoder();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#totalBytes += value.length;
        this.#append(decoder.decode(value, { stream: true }));
      }
    } catch {
      // Cancelled after the shell exited while a background job still held the pipe.
    }
    this.#append(decoder.decode());
  }

  /** Waits for both pipes to close, or gives up after `graceMs` and stops reading. */
  async settle(reading: Promise<unknown>, graceMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) =>
      timer = setTimeout(() => resolve("late"), graceMs)
    );
    const outcome = await Promise.race([reading, late]);
    clearTimeout(timer);
    if (outcome === "late") {
      await Promise.all(this.#readers.map((reader) => reader.cancel().catch(() => {})));
      await reading;
    }
  }

  result(): CollectedOutput {
    let text = this.#chunks.join("");
    // After dropping, the first kept line is partial: start at the next whole one.
    if (this.#droppedChars > 0) text = text.slice(text.indexOf("\n") + 1);
    return {
      text,
      droppedChars: this.#droppedChars,
      totalBytes: this.#totalBytes,
      totalLines: this.#newlines + (this.#endsWithNewline ? 0 : 1),
    };
  }

  /** The last whole lines of the output so far, about `maxChars` long (one long line is cut at its start). */
  tail(maxChars: number): string {
    let size = 0;
    let from = this.#chunks.length;
    while (from > 0 && size < maxChars) size += this.#chunks[--from]!.length;
    const text = this.#chunks.slice(from).join("");
    if (from === 0 && this.#droppedChars === 0 && text.length <= maxChars) return text;
    const cut = text.slice(-maxChars);
    const lineStart = cut.indexOf("\n");
    return lineStart === -1 || lineStart === cut.length - 1 ? cut : cut.slice(lineStart + 1);
  }

  #append(text: string): void {
    if (text === "") return;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) this.#newlines++;
    this.#endsWithNewline = text.endsWith("\n");
    this.#chunks.push(text);
    this.#bufferedChars += text.length;
    while (this.#bufferedChars - this.#chunks[0]!.length >= MAX_BUFFERED_CHARS) {
      const dropped = this.#chunks.shift()!;
      this.#bufferedChars -= dropped.length;
      this.#droppedChars += dropped.length;
    }
    this.onAppend?.();
  }
}
