/**
 * `panto acp`: panto as an Agent Client Protocol agent over standard input
 * and output, for Zed, Neovim and other ACP clients (docs/acp.md).
 *
 * @module
 */
import { isAbsolute } from "node:path";
import {
  agent,
  type AgentContext,
  type ClientCapabilities,
  DEFAULT_MAX_MESSAGE_BYTES,
  type InitializeResponse,
  type McpServer,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { isAbortError } from "@panto/lib";
import type { ChatArgs } from "../setup/args.ts";
import { formatByteSize } from "../config/byte_size.ts";
import { errorMessage } from "../shared/error_message.ts";
import { CliError } from "../shared/errors.ts";
import {
  interruptExitCode,
  type InterruptSignal,
  listenForInterrupts,
} from "../shared/interrupt_signals.ts";
import { logToClient } from "./client_log.ts";
import { VERSION } from "../version.ts";
import { AcpSession } from "./acp_session.ts";
import { clientMcpServers } from "./client_mcp_servers.ts";
import { MessageSizeGuard, type OversizedMessage } from "./message_size_guard.ts";
import { listSessions } from "./session_list.ts";

/** Where `panto acp` reads and writes. */
export interface AcpStreams {
  /** JSON-RPC messages from the client (standard input). */
  input: ReadableStream<Uint8Array>;
  /** JSON-RPC messages to the client (standard output). */
  output: WritableStream<Uint8Array>;
}

const CAPABILITIES: InitializeResponse = {
  protocolVersion: PROTOCOL_VERSION,
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { image: true, embeddedContext: true },
    mcpCapabilities: { http: true, sse: false },
    sessionCapabilities: { list: {}, close: {} },
  },
  agentInfo: { name: "panto", title: "panto", version: VERSION },
  authMethods: [],
};

/** The longest message read: the SDK's limit, which the guard keeps longer ones from reaching. */
const MAX_MESSAGE_BYTES = DEFAULT_MAX_MESSAGE_BYTES;

/** JSON-RPC's code for a request that is not valid as sent. */
const INVALID_REQUEST = -32600;

const encoder = new TextEncoder();

/**
 * Serves ACP until the client closes the connection (standard input ends
 * or standard output is closed) or an interrupting signal arrives; then
 * aborts what runs, saves it and closes the stores.
 *
 * @param args The parsed command line (model, tools, store flags).
 * @param streams Standard input and output.
 * @returns The exit code: 0 when the client left, 128 + the signal's number
 *   after a signal.
 */
export async function runAcpMode(args: ChatArgs, streams: AcpStreams): Promise<number> {
  const sessions = new Map<string, AcpSession>();
  const app = buildApp(args, sessions);
  const output = sharedOutput(streams.output);
  // The SDK would end the connection on an over-long line: the guard answers it instead.
  const input = streams.input.pipeThrough(
    new MessageSizeGuard(MAX_MESSAGE_BYTES, (message) => answerOversized(message, output.write)),
  );
  const connection = app.connect(
    ndJsonStream(output.writable, input, { maxMessageBytes: MAX_MESSAGE_BYTES }),
  );
  let interrupted: InterruptSignal | undefined;
  const signalled = new Promise<void>((resolve) => {
    const stop = listenForInterrupts((signal) => {
      // A second signal while the first one's abort is saving: leave now.
      if (interrupted) Deno.exit(interruptExitCode(interrupted));
      interrupted = signal;
      resolve();
    });
    void connection.closed.finally(stop);
  });
  globalThis.addEventListener("unhandledrejection", ignoreStrayAbort);
  try {
    await Promise.race([connection.closed.catch(() => {}), signalled]);
    return interrupted ? interruptExitCode(interrupted) : 0;
  } finally {
    globalThis.removeEventListener("unhandledrejection", ignoreStrayAbort);
    await Promise.allSettled([...sessions.values()].map((session) => session.close()));
    connection.close();
  }
}

/** The agent's handlers; `sessions` holds the open sessions by id. */
function buildApp(args: ChatArgs, sessions: Map<string, AcpSession>) {
  let clientCapabilities: ClientCapabilities | undefined;
  const find = (id: string): AcpSession => {
    const session = sessions.get(id);
    if (!session) {
      throw RequestError.invalidParams(
        { sessionId: id },
        `No open session ${
          JSON.stringify(id)
        }: create one with session/new or load it with session/load`,
      );
    }
    return session;
  };
  const open = async (
    client: AgentContext,
    request: { cwd: string; mcpServers: McpServer[] },
    resume?: string,
  ): Promise<AcpSession> => {
    await assertProjectDirectory(request.cwd);
    if (resume !== undefined && resume.trim() === "") {
      throw RequestError.invalidParams(
        { sessionId: resume },
        "session/load needs the id of a stored session: session/list gives them",
      );
    }
    const { settings: mcpServers, skipped } = clientMcpServers(request.mcpServers);
    if (skipped.length) {
      logToClient(
        `SSE MCP servers are not supported (use stdio or http); ignored: ${skipped.join(", ")}`,
      );
    }
    // Loading a session open here replaces it, but only once the load succeeded.
    const previous = resume === undefined ? undefined : sessions.get(resume);
    await previous?.letGo();
    const session = await asRequestError(() =>
      AcpSession.open(args, {
        cwd: request.cwd,
        client,
        clientFs: clientCapabilities?.fs,
        clientTerminal: clientCapabilities?.terminal,
        clientNotices: Boolean(clientCapabilities?.session?.notices),
        mcpServers,
        ...(resume === undefined ? {} : { resume }),
      })
    );
    // The store also takes a unique prefix; the client would then use an id no session has.
    if (resume !== undefined && session.id !== resume) {
      await session.close();
      throw RequestError.invalidParams(
        { sessionId: resume },
        `${JSON.stringify(resume)} is only the start of the session id ${session.id}: ` +
          "pass the whole id, as session/list gives it",
      );
    }
    if (previous && sessions.get(session.id) === previous) {
      sessions.delete(session.id);
      await previous.close();
    }
    sessions.set(session.id, session);
    return session;
  };
  return agent({ name: "panto" })
    .onRequest("initialize", ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return CAPABILITIES;
    })
    .onRequest("session/new", async ({ params, client }) => {
      const session = await open(client, params);
      // The response is queued for writing once this handler returns; a timer runs after that.
      setTimeout(() => session.announce(), 0);
      return {
        sessionId: session.id,
        modes: session.modes,
        configOptions: session.configOptions(),
      };
    })
    .onRequest("session/load", async ({ params, client }) => {
      const session = await open(client, params, params.sessionId);
      session.announce();
      await session.replay();
      return { modes: session.modes, configOptions: session.configOptions() };
    })
    .onRequest("session/prompt", async ({ params, signal }) => {
      const session = find(params.sessionId);
      const stopReason = await asRequestError(() => session.prompt(params.prompt, signal));
      return { stopReason };
    })
    .onRequest("session/list", async ({ params }) => ({
      sessions: await asRequestError(() => listSessions(args, params.cwd)),
    }))
    .onRequest("session/close", async ({ params }) => {
      const session = find(params.sessionId);
      sessions.delete(params.sessionId);
      await session.close();
      return {};
    })
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", ({ params }) => {
      asRequestErrorSync(() => find(params.sessionId).setMode(params.modeId));
      return {};
    })
    .onRequest("session/set_config_option", ({ params }) => {
      const session = find(params.sessionId);
      const configOptions = asRequestErrorSync(() =>
        session.setConfigOption(params.configId, params.value)
      );
      return { configOptions };
    });
}

/** A session's `cwd` must be an absolute path (the protocol says so) to a directory. */
async function assertProjectDirectory(cwd: string): Promise<void> {
  if (!isAbsolute(cwd)) {
    throw RequestError.invalidParams(
      { cwd },
      `The cwd ${JSON.stringify(cwd)} is not an absolute path: ACP requires one, ` +
        "e.g. the project's full path",
    );
  }
  // Only what is known to be wrong: a path panto may not look at is for later steps to report.
  const info = await Deno.stat(cwd).catch((error) =>
    error instanceof Deno.errors.NotFound ? null : undefined
  );
  if (info === null || info?.isDirectory === false) {
    throw RequestError.invalidParams(
      { cwd },
      `The cwd ${JSON.stringify(cwd)} is not a directory: pass the project's directory`,
    );
  }
}

/** Standard output, written by the SDK and by the guard's answers, one write at a time. */
function sharedOutput(output: WritableStream<Uint8Array>) {
  const writer = output.getWriter();
  let last: Promise<void> = Promise.resolve();
  const write = (bytes: Uint8Array): Promise<void> => {
    const done = last.then(() => writer.write(bytes));
    last = done.catch(() => {});
    return done;
  };
  return { write, writable: new WritableStream<Uint8Array>({ write }) };
}

/**
 * Answers a message dropped for its size, and logs it: a request gets an
 * error response; a response to one of panto's requests becomes an error
 * response passed on in its place, so what waits for it ends; a
 * notification has no one to answer.
 *
 * @returns The line to pass on instead, if any.
 */
function answerOversized(
  message: OversizedMessage,
  write: (bytes: Uint8Array) => Promise<void>,
): Uint8Array | undefined {
  const what = message.method ?? (message.response ? "a response" : "a message");
  const text = `The message (${what}) is ${formatByteSize(message.bytes)}, over the limit of ${
    formatByteSize(MAX_MESSAGE_BYTES)
  }: send less at once (e.g. a large file as a resource link rather than its contents)`;
  logToClient(`${text}; it was not read`);
  if (message.id === undefined) return undefined;
  const error = { jsonrpc: "2.0", id: message.id, error: { code: INVALID_REQUEST, message: text } };
  const line = encoder.encode(JSON.stringify(error) + "\n");
  if (message.response) return line;
  void write(line).catch(() => {});
  return undefined;
}

/** Our own errors (bad ids, busy, unknown models) are the client's mistakes: invalid params. */
async function asRequestError<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw toRequestError(error);
  }
}

function asRequestErrorSync<T>(task: () => T): T {
  try {
    return task();
  } catch (error) {
    throw toRequestError(error);
  }
}

function toRequestError(error: unknown): unknown {
  if (error instanceof RequestError) return error;
  const message = errorMessage(error);
  return error instanceof CliError
    ? RequestError.invalidParams(undefined, message)
    : RequestError.internalError(undefined, message);
}

/** Deno's fetch may leave an aborted request's rejection unawaited: a cancel must not end the server. */
function ignoreStrayAbort(event: PromiseRejectionEvent): void {
  if (isAbortError(event.reason)) event.preventDefault();
}
