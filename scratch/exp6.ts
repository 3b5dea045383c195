import { Agent, FileSystemJSONLStore, scriptedProvider, ResultParts, type ScriptedReply, messageText } from "../lib/mod.ts";
const CONFIG = { provider: { api: "openai-chat" as const, baseUrl: "http://x/v1", model: "m", reasoning: "off" as const } };
async function scenario(name: string, first: ScriptedReply, toolWaits = false, on = "block_complete") {
  const dir = await Deno.makeTempDir();
  const store = new FileSystemJSONLStore({ dir });
  const session = store.create();
  const provider = scriptedProvider([first, "after", "resumed"]);
  const agent = new Agent({ config: CONFIG, session, provider });
  agent.registerTool({ decl: { name: "t", description: "t", inputSchema: { type: "object" } },
    execute: (_i, ctx) => toolWaits ? new Promise((r) => ctx.signal.addEventListener("abort", () => r(ResultParts.fromText("stopped")))) : ResultParts.fromText("ok") });
  const s = agent.run("FIRST");
  for await (const e of s) { if (e.type === on) s.cancel(); }
  await new Promise((r) => setTimeout(r, 50));
  for await (const _ of agent.run("SECOND"));
  const show = (ms: any[]) => ms.map((m) => `${m.role}:${m.role === "tool" ? "(res)" : messageText(m)}`).join(" | ");
  console.log(name, "in-process:", show(provider.requests[1]!.messages as any));
  await store.close();
  const store2 = new FileSystemJSONLStore({ dir });
  const s2 = (await store2.resolve(session.id))!;
  const provider2 = scriptedProvider(["x"]);
  const agent2 = new Agent({ config: CONFIG, session: s2, conversation: await s2.load(), provider: provider2 });
  // Resume right after the abort: replay: only FIRST + abort
  console.log(name, "state", s2.info.state?.status);
  await store2.close();
}
await scenario("a-before-block", { content: "x", waitForAbortAfter: 0 }, false, "message_start");
await scenario("b-after-text", { content: [{ type: "text", text: "partial" }, { type: "text", text: "more" }], waitForAbortAfter: 1 });
await scenario("c-after-tooluse", { content: [{ type: "tool_use", id: "c1", name: "t", input: {} }], waitForAbortAfter: 1 });
await scenario("d-during-tool", [{ type: "tool_use", id: "c1", name: "t", input: {} }], true, "tool_dispatch_start");
