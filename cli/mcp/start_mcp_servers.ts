import { resolve } from "node:path";
import type { McpServerSettings, PantoConfig } from "../config/panto_config.ts";
import { parseConfigFile } from "../config/parse_config_file.ts";
import { FileRefusedError, readRegularTextFile } from "../config/read_regular_file.ts";
import { errorMessage } from "../shared/error_message.ts";
import { UsageError } from "../shared/errors.ts";
import type { McpServers } from "@panto/lib/mcp";

/** What {@linkcode startMcpServers} needs of the command line. */
export interface McpArgs {
  /** `--mcp-config` files. */
  mcpConfig?: readonly string[];
  /** Servers given by the caller rather than a file (an ACP client's), by name; they come last. */
  mcpServers?: Readonly<Record<string, McpServerSettings>>;
}

/**
 * Starts the config's MCP servers and those of each `--mcp-config` file
 * (a later file replaces a server of the same name) in the background.
 *
 * @param config The loaded config (its `mcpServers` are already trusted).
 * @param args `--mcp-config` files and the caller's own servers.
 * @param cwd panto's working directory.
 * @param report Told each server failure.
 * @returns The servers, or `undefined` when none is configured.
 * @throws {UsageError} When an `--mcp-config` file is missing, unreadable,
 *   invalid, or has no `mcpServers`.
 */
export async function startMcpServers(
  config: PantoConfig,
  args: McpArgs,
  cwd: string,
  report: (message: string) => void,
): Promise<McpServers | undefined> {
  let settings = { ...config.mcpServers };
  for (const path of args.mcpConfig ?? []) {
    settings = { ...settings, ...await readMcpConfigFile(resolve(cwd, path), path) };
  }
  settings = { ...settings, ...args.mcpServers };
  if (Object.keys(settings).length === 0) return undefined;
  // The MCP SDK (a quarter of a -p run's memory) loads only when a server is configured.
  const { McpServers } = await import("@panto/lib/mcp");
  return McpServers.start(settings, { cwd, report });
}

/** The servers of an `--mcp-config` file: `{ "mcpServers": { … } }`, as other agents write it. */
async function readMcpConfigFile(
  path: string,
  shown: string,
): Promise<Record<string, McpServerSettings>> {
  let text: string | undefined;
  try {
    text = await readRegularTextFile(path);
  } catch (error) {
    if (!(error instanceof FileRefusedError || error instanceof Deno.errors.PermissionDenied)) {
      throw error;
    }
    throw new UsageError(`--mcp-config ${shown}: ${errorMessage(error)}`);
  }
  if (text === undefined) {
    throw new UsageError(`--mcp-config ${shown}: no such file; give the path of a JSON file`);
  }
  const servers = (await parseConfigFile(text, shown)).mcpServers;
  if (!servers || Object.keys(servers).length === 0) {
    throw new UsageError(
      `--mcp-config ${shown} defines no MCP servers: write { "mcpServers": { "name": { "command": "…" } } }`,
    );
  }
  return Object.fromEntries(
    Object.entries(servers).map(([name, entry]) => [name, { ...entry, source: shown }]),
  );
}
