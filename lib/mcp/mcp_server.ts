import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  McpError,
  type Progress,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Tool, ToolContext, ToolOutput, ToolSource } from "../tool.ts";
import { resolve } from "node:path";
import type { McpServerSettings } from "./mcp_settings.ts";
import { redactSecrets } from "../redact_secrets.ts";
import { errorMessage } from "../error_message.ts";
import { type McpCallResult, mcpResultParts } from "./mcp_result.ts";
import { mcpToolNames } from "./mcp_tool_name.ts";
import { DenoStdioTransport } from "./stdio_transport.ts";

/** Where a server stands. */
export type McpServerState = "connecting" | "connected" | "restarting" | "failed" | "closed";

/** How a server is run and how it reports. */
export interface McpServerOptions {
  /** panto's working directory (a stdio server's default, and the base of a relative `cwd`). */
  cwd: string;
  /** Told once per failure: a failed start, a death mid-session, a failed restart. */
  report: (message: string) => void;
  /** Called when the server's tool list changed (after it announced it). */
  onToolsChanged?: () => void;
}

/** The longest wait for a server to answer `initialize`, then to list its tools (ms). */
const CONNECT_TIMEOUT_MS = 30_000;
/** A tool call may run long; progress notifications keep it alive. */
const CALL_TIMEOUT_MS = 10 * 60_000;
/** What a report keeps of a server's stderr: its end, enough to show why it stopped. */
const STDERR_TAIL_CHARS = 2000;
const STDERR_TAIL_LINES = 10;

/**
 * One configured MCP server, as a tool source whose tools are named
 * `server__tool`. It connects in the background ({@linkcode McpServer.start});
 * a server that stops mid-session is restarted once, and its tools answer
 * with an error meanwhile and after a second stop.
 *
 * @example
 * ```ts ignore
 * import { McpServer } from "./mcp_server.ts";
 * const server = new McpServer("git", { command: "mcp-git", source: "config.json" }, {
 *   cwd: Deno.cwd(), report: console.error,
 * });
 * server.start();
 * console.log((await server.tools()).map((t) => t.decl.name));
 * await server.close();
 * ```
 */
export class McpServer implements ToolSource {
  /** The server's name in the config. */
  readonly server: string;
  /** The source's name, for error messages. */
  readonly name: string;
  readonly #settings: McpServerSettings;
  readonly #options: McpServerOptions;
  #state: McpServerState = "connecting";
  #error: string | undefined;
  #client: Client | undefined;
  /** The client of the connection in progress, so closing can cut it short. */
  #connecting: Client | undefined;
  #tools: Tool[] = [];
  #restarted = false;
  #stderrTail = "";
  readonly #stderrDecoder = new TextDecoder();
  #ready: Promise<void> = Promise.resolve();

  /**
   * A server not yet started ({@linkcode McpServer.start} connects).
   *
   * @param server Its name: the prefix of its tools' names.
   * @param settings How to reach it.
   * @param options The working directory and where to report failures.
   */
  constructor(server: string, settings: McpServerSettings, options: McpServerOptions) {
    this.server = server;
    this.name = `MCP server ${JSON.stringify(server)}`;
    this.#settings = settings;
    this.#options = options;
  }

  /** Where the server stands. */
  get state(): McpServerState {
    return this.#state;
  }

  /** Why it failed or is restarting (with its stderr tail), if it did. */
  get error(): string | undefined {
    return this.#error;
  }

  /** `stdio` or `http`. */
  get transport(): "stdio" | "http" {
    return this.#settings.url !== undefined ? "http" : "stdio";
  }

  /** Starts connecting in the background (never throws; failures are reported). */
  start(): void {
    this.#ready = this.#connect();
  }

  /**
   * The tools as last listed: waits for a connection in progress (bounded
   * by the caller, see `McpServers.sync`); none while it is down.
   */
  async tools(): Promise<readonly Tool[]> {
    await this.#ready;
    return this.#tools;
  }

  /** Resolves once the connection in progress (if any) succeeded or failed. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Disconnects, also from a connection in progress (a stdio server is stopped). */
  async close(): Promise<void> {
    this.#state = "closed";
    const clients = [this.#client, this.#connecting];
    this.#client = undefined;
    await Promise.all(clients.map((client) => client?.close().catch(() => {})));
    await this.#ready;
  }

  async #connect(): Promise<void> {
    const transport = this.#transport();
    const client = new Client({ name: "panto", version: "1" });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#relist(client));
    client.onclose = () => this.#lost(client, "it stopped");
    this.#connecting = client;
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      if (this.#state === "closed") return void await client.close();
      this.#client = client;
      // A server without tools (resources or prompts only) is up, with nothing to offer.
      const hasTools = client.getServerCapabilities()?.tools !== undefined;
      this.#tools = hasTools ? await this.#list(client, CONNECT_TIMEOUT_MS) : [];
      this.#state = "connected";
      this.#error = undefined;
    } catch (error) {
      if (this.#state === "closed") return;
      this.#client = undefined;
      client.onclose = undefined;
      await client.close().catch(() => {});
      this.#fail(`could not be started: ${errorMessage(error)}`);
    } finally {
      this.#connecting = undefined;
    }
  }

  #transport(): Transport {
    const settings = this.#settings;
    if (settings.url !== undefined) {
      const headers = settings.headers ?? {};
      return new StreamableHTTPClientTransport(new URL(settings.url), { requestInit: { headers } });
    }
    return new DenoStdioTransport({
      command: settings.command!,
      args: settings.args ?? [],
      // Added to what every command inherits: the user's environment, less the withheld keys.
      env: settings.env ?? {},
      cwd: resolve(this.#options.cwd, settings.cwd ?? "."),
      onStderr: (chunk) => this.#keepStderr(chunk),
    });
  }

  #keepStderr(chunk: Uint8Array): void {
    const text = this.#stderrDecoder.decode(chunk, { stream: true });
    this.#stderrTail = (this.#stderrTail + text).slice(
      -STDERR_TAIL_CHARS,
    );
  }

  async #list(client: Client, timeout?: number): Promise<Tool[]> {
    const listed: McpToolDecl[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, timeout ? { timeout } : {});
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    // Named together, so that tools whose names encode alike each get a name of their own.
    const names = mcpToolNames(this.server, listed.map((tool) => tool.name));
    return listed.map((tool, i) => this.#wrap(tool, names[i]!));
  }

  #wrap(tool: McpToolDecl, name: string): Tool {
    return {
      decl: {
        name,
        description: tool.description ?? `${tool.name} (from MCP server ${this.server})`,
        inputSchema: { ...tool.inputSchema },
      },
      execute: (args, ctx) => this.#call(tool.name, args, ctx),
    };
  }

  async #call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    const client = this.#client;
    if (!client || this.#state !== "connected") {
      return errorResult(`${this.name} is ${this.#state}${this.#error ? `: ${this.#error}` : ""}`);
    }
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout: CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: ({ progress, total, message }: Progress) =>
          ctx.onUpdate?.(message ?? `${progress}${total ? `/${total}` : ""}`),
      });
      return mcpResultParts(result as McpCallResult);
    } catch (error) {
      // A protocol error is the server's answer; anything else means the connection broke.
      if (!(error instanceof McpError) && !ctx.signal.aborted) {
        this.#lost(client, errorMessage(error));
      }
      throw error;
    }
  }

  async #relist(client: Client): Promise<void> {
    try {
      const tools = await this.#list(client);
      if (client !== this.#client) return;
      this.#tools = tools;
      this.#options.onToolsChanged?.();
    } catch (error) {
      this.#options.report(
        `${this.name} changed its tools but could not list them: ${errorMessage(error)}`,
      );
    }
  }

  /** The connection of `client` broke: restart once, else fail. */
  #lost(client: Client, why: string): void {
    if (client !== this.#client || this.#state === "closed") return;
    this.#client = undefined;
    client.onclose = undefined;
    void client.close().catch(() => {});
    if (this.#restarted) return this.#fail(`stopped again (${why}); not restarted`);
    this.#restarted = true;
    this.#state = "restarting";
    this.#error = this.#withStderr(`stopped (${why}); restarting it`);
    this.#options.report(`${this.name} ${this.#error}`);
    this.#stderrTail = "";
    this.start();
  }

  #fail(why: string): void {
    this.#state = "failed";
    this.#tools = [];
    this.#error = this.#withStderr(why);
    this.#options.report(`${this.name} ${this.#error}`);
  }

  #withStderr(text: string): string {
    const tail = this.#stderrTail.trimEnd().split("\n").slice(-STDERR_TAIL_LINES).join("\n");
    return tail ? `${text}\nIts stderr ended with:\n${redactSecrets(tail)}` : text;
  }
}

/** A tool as a server lists it (the fields panto reads). */
interface McpToolDecl {
  name: string;
  description?: string;
  inputSchema: object;
}

function errorResult(message: string): ToolOutput {
  return { parts: [{ type: "text", text: message }], isError: true };
}
