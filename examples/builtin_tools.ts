/**
 * panto's built-in tools (`@panto/lib/tools`) on an agent of your own,
 * confined to one directory: a scripted model writes a file there, reads it
 * back and tries to read outside it, which the tool refuses. Without a
 * DIRECTORY it works in a new temporary one.
 *
 *     deno run -A examples/builtin_tools.ts [DIRECTORY]
 *
 * @module
 */
import { Agent, scriptedProvider } from "@panto/lib";
import { builtinTools } from "@panto/lib/tools";

const root = Deno.args[0] ?? await Deno.makeTempDir();
const call = (id: string, name: string, input: Record<string, unknown>) => [
  { type: "tool_use" as const, id, name, input },
];
const provider = scriptedProvider([
  call("1", "write", { path: "hello.txt", content: "Hello from the write tool\n" }),
  call("2", "read", { path: "hello.txt" }),
  call("3", "read", { path: "/etc/passwd" }),
  "Done.",
]);
const agent = new Agent({
  config: {
    provider: { api: "openai-chat", baseUrl: "http://localhost/v1", model: "m", reasoning: "off" },
  },
  provider,
});
for (const tool of builtinTools({ root })) agent.registerTool(tool);
console.log(`tools: ${agent.tools.map((tool) => tool.decl.name).join(", ")}`);

for await (const event of agent.run("Write hello.txt, read it back, then read /etc/passwd")) {
  if (event.type !== "tool_dispatch_complete") continue;
  const text = event.result.map((part) => part.type === "text" ? part.text : "[image]").join("");
  console.log(`${event.call.name} ${event.isError ? "refused" : "ok"}: ${text.split("\n")[0]}`);
}
console.log(`on disk: ${JSON.stringify(await Deno.readTextFile(`${root}/hello.txt`))}`);
