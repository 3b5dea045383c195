/**
 * Drives `panto acp` as a real subprocess with the ACP SDK's client side:
 * records every `session/update` and answers permission requests from a
 * script.
 */
import {
  client,
  type ClientContext,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { childEnv } from "../../support/child_env.ts";

/** A permission answer: none until panto cancels the request (`$/cancel_request`). */
export const WAIT_FOR_CANCEL = "\u0000wait";

const MAIN = new URL("../../../cli/main.ts", import.meta.url).pathname;

/** A running `panto acp` and the client connected to it. */
export class AcpTestClient {
  /** Every update received, in order. */
  readonly updates: SessionNotification[] = [];
  /** Every permission request received, in order. */
  readonly permissionRequests: RequestPermissionRequest[] = [];
  /** The editor's buffers by absolute path: what `fs/read_text_file` reads and `fs/write_text_file` writes. */
  readonly buffers = new Map<string, string>();
  /**
   * The option ids to answer the next permission requests with (`undefined`:
   * cancelled; `WAIT_FOR_CANCEL`: no answer until panto cancels the request;
   * `{ raw }`: that value as the response, however malformed).
   */
  readonly permissionAnswers: (string | undefined | { raw: unknown })[] = [];
  /** The commands panto ran in the client's terminals (`terminal/create`), in order. */
  readonly terminals: { command: string; args: string[]; cwd: string | null | undefined }[] = [];
  readonly #processes = new Map<string, { child: Deno.ChildProcess; output: Promise<string> }>();
  /** Permission requests panto cancelled while they waited. */
  cancelledPermissions = 0;
  readonly #child: Deno.ChildProcess;
  readonly #stderr: Promise<string>;
  #waiters = new Set<() => void>();

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#stderr = new Response(child.stderr).text();
  }

  /**
   * Starts `panto acp` in `cwd` with `home` as PANTO_HOME and runs `body`
   * with a connected client; the process is gone afterwards.
   *
   * @returns panto's exit code and stderr.
   */
  static async run(
    options: {
      home: string;
      cwd: string;
      args?: readonly string[];
      /** panto leaves before the body ends (a signal): the connection closing is expected. */
      leaves?: boolean;
    },
    body: (ctx: ClientContext, test: AcpTestClient) => Promise<void>,
  ): Promise<{ code: number; stderr: string }> {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", MAIN, "acp", ...(options.args ?? [])],
      cwd: options.cwd,
      clearEnv: true,
      env: { ...childEnv(options.home), PANTO_HOME: options.home, NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const test = new AcpTestClient(child);
    const app = client({ name: "panto-test" })
      .onNotification("session/update", ({ params }) => {
        test.updates.push(params);
        test.#wake();
      })
      .onRequest("fs/read_text_file", ({ params }) => {
        const text = test.buffers.get(params.path);
        if (text === undefined) throw new Error(`no buffer for ${params.path}`);
        const lines = text.split("\n");
        const from = (params.line ?? 1) - 1;
        const to = params.limit ? from + params.limit : undefined;
        return { content: lines.slice(from, to).join("\n") };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        test.buffers.set(params.path, params.content);
        return {};
      })
      .onRequest("terminal/create", ({ params }) => {
        const args = params.args ?? [];
        test.terminals.push({ command: params.command, args, cwd: params.cwd });
        const child = new Deno.Command(params.command, {
          args,
          ...(params.cwd ? { cwd: params.cwd } : {}),
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const output = Promise.all([
          new Response(child.stdout).text(),
          new Response(child.stderr).text(),
        ])
          .then(([out, err]) => out + err);
        const terminalId = `terminal-${test.terminals.length}`;
        test.#processes.set(terminalId, { child, output });
        return { terminalId };
      })
      .onRequest("terminal/wait_for_exit", async ({ params }) => {
        const status = await test.#process(params.terminalId).child.status;
        return { exitCode: status.code, signal: status.signal ?? null };
      })
      .onRequest("terminal/output", async ({ params }) => {
        return { output: await test.#process(params.terminalId).output, truncated: false };
      })
      .onRequest("terminal/kill", ({ params }) => {
        test.#process(params.terminalId).child.kill();
        return {};
      })
      .onRequest("terminal/release", ({ params }) => {
        test.#processes.delete(params.terminalId);
        return {};
      })
      .onRequest("session/request_permission", async ({ params, signal }) => {
        test.permissionRequests.push(params);
        test.#wake();
        const optionId = test.permissionAnswers.shift();
        if (typeof optionId === "object") return optionId.raw as RequestPermissionResponse;
        if (optionId === WAIT_FOR_CANCEL) {
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          test.cancelledPermissions++;
          return { outcome: { outcome: "cancelled" as const } };
        }
        return {
          outcome: optionId === undefined
            ? { outcome: "cancelled" as const }
            : { outcome: "selected" as const, optionId },
        };
      });
    try {
      await app.connectWith(ndJsonStream(child.stdin, child.stdout), (ctx) => body(ctx, test));
    } catch (error) {
      if (options.leaves && String(error).includes("connection closed")) {
        // panto left: its input is closed here too, or the test leaks the pipe.
        await child.stdin.close().catch(() => {});
        return { code: (await child.status).code, stderr: await test.#stderr };
      }
      test.#stop();
      await child.status;
      throw new Error(`${error}\npanto's stderr:\n${await test.#stderr}`);
    }
    // The SDK releases the stream without closing it: panto's input ends here (unless it left).
    await child.stdin.close().catch(() => {});
    const { code } = await child.status;
    return { code, stderr: await test.#stderr };
  }

  /** Sends panto a signal. */
  kill(signal: Deno.Signal): void {
    this.#child.kill(signal);
  }

  #process(terminalId: string): { child: Deno.ChildProcess; output: Promise<string> } {
    const process = this.#processes.get(terminalId);
    if (!process) throw new Error(`no terminal ${terminalId}`);
    return process;
  }

  /** Kills panto unless it has left already. */
  #stop(): void {
    try {
      this.#child.kill();
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
    }
  }

  /** The updates of one session, without the envelope. */
  updatesOf(sessionId: string): SessionUpdate[] {
    return this.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  }

  /** Resolves once `test` holds for the updates received so far (`timeoutMs`, default 5 s, at most). */
  async waitFor(what: string, test: () => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.#waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }
}
