/**
 * A small MCP server for the tests, written with the SDK's server side:
 * over stdio when run as a program (`deno run -A mcp_test_server.ts`), over
 * Streamable HTTP with {@linkcode startHttpMcpServer}.
 *
 * Tools: `echo`, `picture` (an image), `document` (an embedded resource and
 * a link), `env` (a variable of the server's environment), `grow` (adds the
 * tool `extra`, so the server announces a changed list), `die` (stdio:
 * the process exits mid-call) and `flood` (an answer of `megabytes` MB of
 * text, 50 by default).
 *
 * As a program, `MCP_TEST_START_FILE` holds its start until that file
 * exists (a slow server, for as long as a test needs), `MCP_TEST_BROKEN`
 * makes it print to stderr and exit at once, `MCP_TEST_NO_TOOLS` serves
 * one resource and no tools, `MCP_TEST_PID_FILE` names a file it writes its
 * pid to, and `MCP_TEST_STUBBORN` makes it ignore SIGTERM and the end of its
 * stdin (only SIGKILL stops it).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import type { FakeReply } from "./fake_llm_server.ts";

/** A 1×1 PNG, base64. */
export const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** The command line that runs this file as a stdio server. */
export const STDIO_SERVER_COMMAND = {
  command: Deno.execPath(),
  args: [
    "run",
    "-A",
    "--quiet",
    `--config=${new URL("../../deno.json", import.meta.url).pathname}`,
    new URL(import.meta.url).pathname,
  ],
};

/**
 * The test server run as wrapper scripts often run servers: `sh -c` without
 * `exec`, so panto's child is the shell and the server its child. Both
 * ignore SIGTERM, the server also the end of its stdin, and the shell would
 * go on (`sleep`) after the server: only killing the whole group stops them.
 * The shell writes its pid to `<pidDir>/wrapper.pid`, the server to
 * `<pidDir>/server.pid`. With `escapee`, the shell first starts a `sleep` in
 * a session of its own (`setsid`, out of reach of the group) that holds the
 * server's stdout and stderr open; its pid goes to `<pidDir>/escapee.pid`.
 *
 * @param pidDir Where the pid files go.
 * @param options Whether a process escapes the group.
 * @returns The command, arguments and environment of the server.
 *
 * @example
 * ```ts ignore
 * import { wrappedServerCommand } from "./mcp_test_server.ts";
 * const { command, args, env } = wrappedServerCommand(await Deno.makeTempDir());
 * ```
 */
export function wrappedServerCommand(
  pidDir: string,
  options: { escapee?: boolean } = {},
): { command: string; args: string[]; env: Record<string, string> } {
  const server = [STDIO_SERVER_COMMAND.command, ...STDIO_SERVER_COMMAND.args].map(shellQuote);
  const script = [
    "trap '' TERM",
    'echo $$ > "$PID_DIR/wrapper.pid"',
    ...options.escapee ? ['setsid sleep 1000 & echo $! > "$PID_DIR/escapee.pid"'] : [],
    server.join(" "),
    "sleep 1000",
  ].join("\n");
  return {
    command: "sh",
    args: ["-c", script],
    env: {
      PID_DIR: pidDir,
      MCP_TEST_PID_FILE: `${pidDir}/server.pid`,
      MCP_TEST_STUBBORN: "1",
    },
  };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The test server with its tools. */
export function buildTestMcpServer(): McpServer {
  const server = new McpServer({ name: "panto-test", version: "1.0.0" });
  server.registerTool("echo", {
    description: "Echo text",
    inputSchema: { text: z.string() },
  }, ({ text }: { text: string }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }));
  server.registerTool("picture", { description: "A picture" }, () => ({
    content: [{ type: "text", text: "here" }, {
      type: "image",
      data: PIXEL_PNG,
      mimeType: "image/png",
    }],
  }));
  server.registerTool("document", { description: "A document" }, () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" },
      },
      { type: "resource_link", uri: "file:///big.bin", name: "big" },
    ],
  }));
  server.registerTool(
    "env",
    {
      description: "A variable of the server's environment",
      inputSchema: { name: z.string() },
    },
    ({ name }: { name: string }) => ({
      content: [{ type: "text", text: Deno.env.get(name) ?? "(unset)" }],
    }),
  );
  server.registerTool("grow", { description: "Adds the tool extra" }, () => {
    server.registerTool(
      "extra",
      { description: "Added later" },
      () => ({ content: [{ type: "text", text: "extra" }] }),
    );
    return { content: [{ type: "text", text: "grown" }] };
  });
  server.registerTool("fail", { description: "Answers with an error" }, () => ({
    content: [{ type: "text", text: "it went wrong" }],
    isError: true,
  }));
  server.registerTool("flood", {
    description: "Answers with megabytes MB of text (default 50)",
    inputSchema: { megabytes: z.number().optional() },
  }, ({ megabytes = 50 }: { megabytes?: number | undefined }) => ({
    content: [{ type: "text", text: `${"z".repeat(49)}\n`.repeat(megabytes * 20_000) }],
  }));
  server.registerTool("die", { description: "Exits the process" }, () => {
    console.error("dying on request");
    Deno.exit(7);
  });
  return server;
}

/** A server without the tools capability: one resource. */
function resourcesOnly(): McpServer {
  const server = new McpServer({ name: "panto-test-resources", version: "1.0.0" });
  server.registerResource("readme", "file:///readme.md", {}, (uri: URL) => ({
    contents: [{ uri: uri.href, text: "# Readme" }],
  }));
  return server;
}

/**
 * A model's two turns that call the echo tool of a stdio server named
 * `local` and of an HTTP one named `remote`, then say "Both answered.".
 */
export const ECHO_BOTH_REPLIES: FakeReply[] = [
  {
    kind: "turn",
    blocks: [
      { type: "tool_use", id: "c1", name: "local__echo", input: { text: "from stdio" } },
      { type: "tool_use", id: "c2", name: "remote__echo", input: { text: "from http" } },
    ],
  },
  { kind: "turn", blocks: [{ type: "text", text: "Both answered." }] },
];

/** A running Streamable HTTP server. */
export interface HttpMcpServer {
  /** Its endpoint. */
  url: string;
  /** The headers of the last request. */
  lastHeaders: Headers | undefined;
  /** Stops it. */
  close(): Promise<void>;
}

/** Serves the test server over Streamable HTTP on a free local port (one client session). */
export function startHttpMcpServer(): Promise<HttpMcpServer> {
  const mcp = buildTestMcpServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  const connected = mcp.connect(transport);
  return new Promise((resolve) => {
    const result: HttpMcpServer = {
      url: "",
      lastHeaders: undefined,
      close: async () => {
        await mcp.close();
        await server.shutdown();
      },
    };
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ port }) => {
        result.url = `http://127.0.0.1:${port}/mcp`;
        connected.then(() => resolve(result));
      },
    }, (request) => {
      result.lastHeaders = request.headers;
      return transport.handleRequest(request);
    });
  });
}

if (import.meta.main) {
  const startFile = Deno.env.get("MCP_TEST_START_FILE");
  console.error("test server starting");
  if (Deno.env.get("MCP_TEST_BROKEN")) {
    console.error("boom: the test server is broken on purpose");
    Deno.exit(3);
  }
  while (startFile && !(await Deno.stat(startFile).then(() => true, () => false))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const pidFile = Deno.env.get("MCP_TEST_PID_FILE");
  if (pidFile) await Deno.writeTextFile(pidFile, `${Deno.pid}\n`);
  if (Deno.env.get("MCP_TEST_STUBBORN")) {
    Deno.addSignalListener("SIGTERM", () => {});
    // A pending timer keeps the process alive after stdin ends.
    setInterval(() => {}, 60_000);
  }
  const server = Deno.env.get("MCP_TEST_NO_TOOLS") ? resourcesOnly() : buildTestMcpServer();
  await server.connect(new StdioServerTransport());
}
