import { AmbiguousSessionIdError, InvalidSessionIdError, SessionCorruptError } from "@panto/lib";
import type { CliArgs, SessionsCommandArgs } from "./setup/args.ts";
import type { ModelsArgs } from "./commands/models.ts";
import { type ChatArgs, quickChatArgs } from "./setup/chat_args.ts";
import { SessionController } from "./controller/session_controller.ts";
import { resolvePantoHome } from "./config/load_config.ts";
import { readEnv, takeHandedOverVariables } from "./shared/env.ts";
import { permissionMessage } from "./shared/permission_message.ts";
import { CliError, UsageError } from "./shared/errors.ts";
import { interruptExitCode, listenForInterrupts } from "./shared/interrupt_signals.ts";
import { refuseApproval, runPrintMode } from "./print/print_mode.ts";
import { installApprovals } from "./approvals/install_approvals.ts";
import { promptsFromWords } from "./setup/prompt_words.ts";
import { openStore, storeFailureAsUsage } from "./setup/session_store.ts";
import { readStdinText, writeStderr, writeStdout } from "./shared/stdio.ts";

/**
 * The `panto` program.
 *
 * @param argv Command-line arguments.
 * @returns The exit code.
 */
export async function main(argv: readonly string[]): Promise<number> {
  await takeHandedOverVariables();
  // pi's spelling of `panto models`.
  const words = argv[0] === "--list-models" ? ["models", ...argv.slice(1)] : argv;
  const args = quickChatArgs(words) ?? await parseFully(words);
  if (args.command === "sessions") return await sessionsCommand(args);
  if (args.command === "models") return await modelsCommand(args);
  if (args.mode === "rpc") return await rpcMode(args);
  if (args.mode === "acp") return await acpMode(args);
  if (args.print) return await printMode(args);
  // The terminal UI loads only for the interactive mode.
  const { runInteractive } = await import("./chat/run_interactive.ts");
  return await runInteractive(args);
}

/**
 * optique's parse, help and errors, loaded for a command line the quick
 * reading leaves to it (a print run's plain one does not need them).
 */
async function parseFully(argv: readonly string[]): Promise<CliArgs> {
  const [{ parseArgs }, { completionValues }] = await Promise.all([
    import("./setup/args.ts"),
    import("./setup/completion_values.ts"),
  ]);
  return parseArgs(argv, await completionValues(argv));
}

async function sessionsCommand(args: SessionsCommandArgs): Promise<number> {
  const { runSessionsCommand } = await import("./commands/sessions.ts");
  const store = await openStore(args, resolvePantoHome(readEnv, Deno.cwd()));
  try {
    return await runSessionsCommand(store, args, writeStdout);
  } catch (error) {
    throw storeFailureAsUsage(args, error);
  } finally {
    await store.close();
  }
}

async function modelsCommand(args: ModelsArgs): Promise<number> {
  const [{ runModelsCommand }, { loadConfig }] = await Promise.all([
    import("./commands/models.ts"),
    import("./config/load_config.ts"),
  ]);
  const cwd = Deno.cwd();
  // A listing uses no project setting that needs trust.
  const config = await loadConfig({
    pantoHome: resolvePantoHome(readEnv, cwd),
    cwd,
    env: readEnv,
    untrustedProject: "ignore",
  });
  return await runModelsCommand(config, args, writeStdout);
}

async function printMode(args: ChatArgs): Promise<number> {
  const [first, ...rest] = await promptsFrom(args.messages);
  if (first === undefined) {
    throw new UsageError('No prompt: pass one as an argument (panto -p "…") or pipe it on stdin');
  }
  const controller = await SessionController.open(args);
  for (const notice of controller.notices) writeStderr(`panto: ${notice}\n`);
  const expand = async (prompt: string) => await controller.expandPromptCommand(prompt) ?? prompt;
  const refuse = refuseApproval(writeStderr);
  installApprovals(controller, args, (request) => Promise.resolve(refuse(request)));
  const abort = new AbortController();
  const stopListening = listenForInterrupts((signal) => {
    // A second signal while the first one's abort is saving: leave now.
    if (abort.signal.aborted) Deno.exit(interruptExitCode(abort.signal.reason));
    abort.abort(signal);
  });
  try {
    await controller.loadExtensions({
      mode: "print",
      uiEvents: undefined,
      notify: (text, level) =>
        writeStderr(`panto: ${level === "info" ? "" : `${level}: `}${text}\n`),
      submit: () =>
        writeStderr(
          "panto: an extension tried to send a prompt; that works in the interactive mode only\n",
        ),
      reservedCommands: [],
    });
    return await runPrintMode(
      controller,
      // `panto -p "/skill:name args"` and `panto -p "/template args"` work as in the chat.
      [await expand(first), ...await Promise.all(rest.map(expand))],
      args.mode === "json" ? "json" : "text",
      { stdout: writeStdout, stderr: writeStderr },
      abort.signal,
    );
  } finally {
    stopListening();
    await controller.close();
  }
}

/** RPC mode loads neither the terminal UI nor print mode. */
async function rpcMode(args: ChatArgs): Promise<number> {
  const { runRpcMode } = await import("./rpc/rpc_mode.ts");
  return await runRpcMode(args, { input: Deno.stdin.readable, write: writeStdout });
}

/** `panto acp` loads neither the terminal UI nor print mode. */
async function acpMode(args: ChatArgs): Promise<number> {
  const { runAcpMode } = await import("./acp/acp_mode.ts");
  return await runAcpMode(args, { input: Deno.stdin.readable, output: Deno.stdout.writable });
}

/**
 * The prompts, sent in turn: one a message argument (`@path` words join the
 * first), piped stdin (when stdin is not a terminal) after the first's text.
 */
async function promptsFrom(messages: readonly string[]): Promise<string[]> {
  const [first = "", ...rest] = promptsFromWords(messages);
  const parts = [first];
  if (!Deno.stdin.isTerminal()) parts.push(await readStdinText());
  const head = parts.map((p) => p.trim()).filter(Boolean).join("\n\n");
  return head ? [head, ...rest] : rest;
}

/**
 * `deno task panto` runs in panto's own directory and passes the directory
 * it was invoked from as PANTO_CWD (its permissions are scoped to that).
 * The variable is then removed: a `panto` the user runs from panto (`!panto
 * -p …`) must start where it is run, not here.
 */
export function enterInvocationDirectory(): void {
  if (Deno.permissions.querySync({ name: "env", variable: "PANTO_CWD" }).state !== "granted") {
    return;
  }
  const dir = Deno.env.get("PANTO_CWD");
  if (dir) Deno.chdir(dir);
  Deno.env.delete("PANTO_CWD");
}

/**
 * 2 for mistakes in how panto was called (including a bad or ambiguous
 * session id), else 1.
 *
 * @param error What was thrown.
 * @returns The exit code.
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  return error instanceof InvalidSessionIdError || error instanceof AmbiguousSessionIdError ? 2 : 1;
}

/**
 * A user-facing line for an error: our own errors and known kinds without a
 * stack.
 */
function describeFailure(error: unknown): string {
  if (error instanceof CliError) return error.message;
  if (error instanceof SessionCorruptError) {
    return `${error.message} (from the command line: panto sessions repair ID)`;
  }
  if (error instanceof Deno.errors.NotCapable) return permissionMessage(error.message);
  if (error instanceof Error && error.name !== "Error" && !(error instanceof TypeError)) {
    return error.message;
  }
  return String((error as Error)?.stack ?? error);
}

/**
 * Writes the user-facing line for a failure to stderr.
 *
 * @param error What was thrown.
 */
export function writeFailure(error: unknown): void {
  writeStderr(`panto: ${describeFailure(error)}\n`);
}
