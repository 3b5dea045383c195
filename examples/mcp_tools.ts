/**
 * An MCP server's tools (`@panto/lib/mcp`) on an agent of your own: starts
 * the stdio server the arguments name, lists the tools it offers (named
 * `server__tool`), and, with `--call=TOOL` and `--input=JSON`, has a
 * scripted model call one and prints the result.
 *
 *     deno run -A examples/mcp_tools.ts --call=demo__echo --input='{"text":"hi"}' -- mcp-server-everything
 *
 * @module
 */
import { Agent, scriptedProvider } from "@panto/lib";
import { McpServers } from "@panto/lib/mcp";

const split = Deno.args.indexOf("--");
const [command, ...args] = Deno.args.slice(split + 1);
if (split < 0 || !command) throw new Error("Name the server after --, e.g. -- mcp-server-git");
const flag = (name: string) =>
  Deno.args.slice(0, split).find((a) => a.startsWith(`--${name}=`))?.slice(3 + name.length);
const tool = flag("call");

const servers = McpServers.start(
  { demo: { command, args, source: "the command line" } },
  { cwd: Deno.cwd(), report: (message) => console.error(message) },
  30_000, // the first sync waits this long for the server to start
);
const provider = scriptedProvider(
  tool
    ? [
      [{ type: "tool_use", id: "1", name: tool, input: JSON.parse(flag("input") ?? "{}") }],
      "Done.",
    ]
    : [],
);
const agent = new Agent({
  config: {
    provider: { api: "openai-chat", baseUrl: "http://localhost/v1", model: "m", reasoning: "off" },
  },
  provider,
});
try {
  await servers.sync(agent);
  console.log(`tools: ${agent.tools.map((t) => t.decl.name).join(", ")}`);
  if (tool) {
    for await (const event of agent.run(`Call ${tool}`)) {
      if (event.type !== "tool_dispatch_complete") continue;
      const text = event.result.map((part) => part.type === "text" ? part.text : "[image]").join(
        "",
      );
      console.log(`${event.call.name} ${event.isError ? "failed" : "ok"}: ${text}`);
    }
  }
} finally {
  await servers.close();
}
