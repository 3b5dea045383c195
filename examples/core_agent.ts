/**
 * The core of `@panto/lib` on its own: an agent with one tool, answered by
 * a scripted provider, nothing persisted. It imports no store, codec or
 * Deno API, so it runs on Deno, Node and Bun alike:
 *
 *     deno run examples/core_agent.ts
 *     deno bundle --platform=node -o /tmp/core_agent.mjs examples/core_agent.ts && node /tmp/core_agent.mjs
 *
 * @module
 */
import { Agent, messageText, ResultParts, scriptedProvider } from "@panto/lib";

const provider = scriptedProvider([
  [{ type: "tool_use", id: "call_1", name: "add", input: { a: 2, b: 3 } }],
  "2 + 3 = 5",
]);
const agent = new Agent({
  config: {
    provider: {
      api: "openai-chat",
      baseUrl: "http://localhost/v1",
      model: "any",
      reasoning: "off",
    },
  },
  provider,
});
agent.registerTool({
  decl: {
    name: "add",
    description: "Add two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
  execute: (args) => ResultParts.fromText(String(Number(args.a) + Number(args.b))),
});

for await (const event of agent.run("What is 2 + 3?")) {
  if (event.type === "tool_dispatch_complete") {
    console.log(
      `tool ${event.call.name} → ${
        event.result.map((part) => part.type === "text" ? part.text : "").join("")
      }`,
    );
  }
}
const last = agent.conversation.messages.at(-1);
console.log(`answer: ${last ? messageText(last) : ""}`);
