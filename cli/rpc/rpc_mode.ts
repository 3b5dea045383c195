/**
 * `panto --mode rpc`: commands as JSON lines on standard input; responses
 * and every event as JSON lines on standard output (docs/rpc.md).
 *
 * @module
 */
import type { ChatArgs } from "../setup/args.ts";
import type { ControllerEvent } from "../controller/controller_events.ts";
import { SessionController } from "../controller/session_controller.ts";
import type { NotifyLevel } from "../extensions/extension_api.ts";
import { formatByteSize } from "../config/byte_size.ts";
import { errorMessage } from "../shared/error_message.ts";
import { MAX_IMAGE_BYTES } from "@panto/lib/tools";
import {
  BROKEN_PIPE_EXIT_CODE,
  interruptExitCode,
  type InterruptSignal,
  listenForInterrupts,
} from "../shared/interrupt_signals.ts";
import { MAX_LINE_BYTES, readJsonLines } from "./json_lines.ts";
import { handleCommand } from "./rpc_handlers.ts";
import {
  parseCommand,
  type RpcCommand,
  type RpcCommandError,
  type RpcCommandType,
} from "./rpc_commands.ts";
import { RpcOutput } from "./rpc_output.ts";
import { RpcApprovals } from "./rpc_approvals.ts";
import { installApprovals } from "../approvals/install_approvals.ts";

/** Where RPC mode reads and writes. */
export interface RpcStreams {
  /** Commands (standard input). */
  input: ReadableStream<Uint8Array>;
  /** Writes all of a text (standard output). */
  write: (text: string) => void;
}

/** How long an interrupt waits for the aborted run to save before exiting anyway (ms). */
const INTERRUPT_SAVE_WAIT_MS = 5_000;

/** Why the command loop stopped. */
type Stop = { kind: "signal"; signal: InterruptSignal } | { kind: "closed" };

/**
 * Serves RPC commands until standard input ends (after the running run and
 * queued prompts finish), an interrupting signal arrives (the run is
 * aborted and what was answered saved), or standard output is closed.
 *
 * @param args The parsed command line (model, session, store flags).
 * @param streams Standard input and output.
 * @returns The exit code: 0 at the end of input, 128 + the signal's number
 *   after a signal, 141 when standard output was closed.
 */
export async function runRpcMode(args: ChatArgs, streams: RpcStreams): Promise<number> {
  const controller = await SessionController.open(args);
  let stop: (reason: Stop) => void = () => {};
  let interrupted: InterruptSignal | undefined;
  const stopped = new Promise<Stop>((resolve) => stop = resolve);
  const output = new RpcOutput(streams.write, () => stop({ kind: "closed" }));
  const unsubscribe = controller.subscribe((event) => output.send(event));
  const approvals = new RpcApprovals((record) => output.send(record));
  installApprovals(controller, args, approvals.ask);
  const stopListening = listenForInterrupts((signal) => {
    // A second signal while the first one's abort is saving: leave now.
    if (interrupted) Deno.exit(interruptExitCode(interrupted));
    interrupted = signal;
    stop({ kind: "signal", signal });
  });
  try {
    for (const text of controller.notices) output.send(notice("warning", text));
    await controller.loadExtensions({
      mode: "rpc",
      uiEvents: undefined,
      notify: (text, level) => output.send(notice(level, text)),
      submit: (text) => controller.followUp(text),
      reservedCommands: [],
    });
    const ended = await serve({ controller, approvals, output }, streams.input, stopped);
    // Nobody can answer a question any more: the run must not wait for one forever.
    if (ended) approvals.endOfInput();
    // At the end of input the run and the queued prompts finish first (a signal still stops them).
    const reason = ended
      ? await Promise.race([controller.idle().then(() => undefined), stopped])
      : await stopped;
    if (reason === undefined) return 0;
    return reason.kind === "closed" ? BROKEN_PIPE_EXIT_CODE : interruptExitCode(reason.signal);
  } finally {
    stopListening();
    await controller.close(INTERRUPT_SAVE_WAIT_MS);
    unsubscribe();
  }
}

/** What a command acts on and where its response goes. */
interface Server {
  controller: SessionController;
  approvals: RpcApprovals;
  output: RpcOutput;
}

/** Commands carried out as soon as they are read, ahead of those waiting their turn. */
const AT_ONCE: ReadonlySet<RpcCommandType> = new Set(["abort", "approval_response"]);

/**
 * Reads and carries out commands: one at a time, in order, except `abort`
 * and `approval_response`, which act as soon as they are read (so an abort
 * can stop a `compact` still being handled, and a run waiting for an
 * approval never waits behind a command). Returns true at the end of input
 * (once the commands read are handled), false when `stopped` settled first.
 */
async function serve(
  server: Server,
  input: ReadableStream<Uint8Array>,
  stopped: Promise<Stop>,
): Promise<boolean> {
  const { output } = server;
  const lines = readJsonLines(input)[Symbol.asyncIterator]();
  const halt = stopped.then(() => undefined);
  let pending: Promise<void> = Promise.resolve();
  for (;;) {
    const next = await Promise.race([lines.next(), halt]);
    if (next === undefined) return false;
    if (next.done) break;
    const line = next.value;
    if (line.kind === "too_long") {
      output.send(failure({ error: tooLongMessage(line.bytes) }));
      continue;
    }
    const parsed = parseCommand(line.text);
    if ("invalid" in parsed) {
      output.send(failure(parsed.invalid));
      continue;
    }
    const { command } = parsed;
    if (AT_ONCE.has(command.type)) void respond(server, command);
    else pending = pending.then(() => respond(server, command));
  }
  return await Promise.race([pending.then(() => true), halt.then(() => false)]);
}

/** Carries out one command and writes its response. */
async function respond(
  { controller, approvals, output }: Server,
  command: RpcCommand,
): Promise<void> {
  const { id, type } = command;
  try {
    const data = await handleCommand(controller, command, approvals);
    output.send(
      response({ id, command: type }, { success: true, ...(data === undefined ? {} : { data }) }),
    );
  } catch (error) {
    output.send(response({ id, command: type }, { success: false, error: errorMessage(error) }));
  }
}

/** A notice as the controller's own are sent: startup notices, extensions' messages. */
function notice(level: NotifyLevel, text: string): ControllerEvent {
  return { type: "notice", level, text };
}

/** A response: `id` and `command` when they are known, then the outcome. */
function response(
  known: { id: string | number | undefined; command: RpcCommandType | undefined },
  outcome: { success: true; data?: unknown } | { success: false; error: string },
): object {
  return {
    type: "response",
    ...(known.id === undefined ? {} : { id: known.id }),
    ...(known.command === undefined ? {} : { command: known.command }),
    ...outcome,
  };
}

/** An error response for what could be made of the command. */
function failure({ id, command, error }: RpcCommandError): object {
  return response({ id, command }, { success: false, error });
}

function tooLongMessage(bytes: number): string {
  return `the line is ${formatByteSize(bytes)}, over the limit of ${
    formatByteSize(MAX_LINE_BYTES)
  }: send smaller images (each at most ${formatByteSize(MAX_IMAGE_BYTES)})`;
}
