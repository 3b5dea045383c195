import type { Agent } from "../agent.ts";
import type { McpServerSettings } from "./mcp_settings.ts";
import { McpServer, type McpServerOptions } from "./mcp_server.ts";
import type { McpServerStatus } from "./mcp_status.ts";

/** How long the first run waits, at most, for servers still starting (ms). */
const DEFAULT_READY_WAIT_MS = 3000;

/**
 * The configured MCP servers of a session controller: started in the
 * background, their tools put on each agent at the start of its runs
 * ({@linkcode McpServers.sync}), so a changed tool list takes effect at the
 * next run.
 *
 * @example
 * ```ts ignore
 * import { McpServers } from "./mcp_servers.ts";
 * const servers = McpServers.start({ git: { command: "mcp-git", source: "config.json" } }, {
 *   cwd: Deno.cwd(), report: console.error,
 * });
 * await servers.sync(agent);
 * await servers.close();
 * ```
 */
export class McpServers {
  readonly #servers: McpServer[];
  readonly #settings: Record<string, McpServerSettings>;
  /** Spent by the first sync: later runs never wait. */
  #readyWaitMs: number;
  /** The MCP tool names registered on each agent, to drop those a server no longer lists. */
  readonly #registered = new WeakMap<Agent, Set<string>>();

  private constructor(
    settings: Record<string, McpServerSettings>,
    options: McpServerOptions,
    readyWaitMs: number,
  ) {
    this.#settings = settings;
    this.#servers = Object.entries(settings).map(([name, entry]) =>
      new McpServer(name, entry, options)
    );
    this.#readyWaitMs = readyWaitMs;
  }

  /**
   * Starts connecting to every server, without waiting for any.
   *
   * @param settings The servers by name.
   * @param options Working directory, hidden variables, where to report failures.
   * @param readyWaitMs How long the first run waits for servers still starting.
   * @returns The servers.
   */
  static start(
    settings: Record<string, McpServerSettings>,
    options: McpServerOptions,
    readyWaitMs = DEFAULT_READY_WAIT_MS,
  ): McpServers {
    const servers = new McpServers(settings, options, readyWaitMs);
    for (const server of servers.#servers) server.start();
    return servers;
  }

  /**
   * Puts the servers' current tools on `agent` and removes those they no
   * longer offer. The first call waits at most the ready wait for servers
   * still starting; later calls never wait. A server not up yet offers its
   * tools from a later run.
   *
   * @param agent The agent about to run.
   */
  async sync(agent: Agent): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => timer = setTimeout(resolve, this.#readyWaitMs));
    await Promise.race([Promise.all(this.#servers.map((s) => s.ready())), waited]);
    clearTimeout(timer);
    this.#readyWaitMs = 0;
    const previous = this.#registered.get(agent) ?? new Set();
    for (const name of previous) agent.unregisterTool(name);
    const current = new Set<string>();
    for (const server of this.#servers) {
      if (server.state !== "connected") continue;
      for (const tool of await server.tools()) {
        if (
          current.has(tool.decl.name) || agent.tools.some((t) => t.decl.name === tool.decl.name)
        ) {
          continue; // A built-in or extension tool of that name wins.
        }
        agent.registerTool(tool);
        current.add(tool.decl.name);
      }
    }
    this.#registered.set(agent, current);
  }

  /** Every server's name, transport, state, tools and error, in config order. */
  status(): McpServerStatus[] {
    return this.#servers.map((server) => {
      const status: McpServerStatus = {
        name: server.server,
        transport: server.transport,
        state: server.state,
        tools: [],
        source: this.#settings[server.server]!.source,
      };
      if (server.error !== undefined) status.error = server.error;
      return status;
    });
  }

  /**
   * Every server's status with its tools (waiting for none).
   *
   * @returns The statuses.
   */
  async describe(): Promise<McpServerStatus[]> {
    const statuses = this.status();
    for (const [index, server] of this.#servers.entries()) {
      if (server.state === "connected") {
        statuses[index]!.tools = (await server.tools()).map((t) => t.decl.name);
      }
    }
    return statuses;
  }

  /** Disconnects every server (stdio servers are stopped). */
  async close(): Promise<void> {
    await Promise.all(this.#servers.map((server) => server.close()));
  }
}
