import { Agent, FileSystemJSONLStore, scriptedProvider, ResultParts, type ScriptedReply, messageText } from "../lib/mod.ts";
const CONFIG = { provider: { api: "openai-chat" as const, baseUrl: "http://x/v1", model: "m", reasoning: "off" as const } };
const show = (ms: any[]) => ms.map((m) => `${m.role}:${m.role === "tool" ? "(res)" : messageText(m)}`).join(" | ");
async function scenario(name: string, first: ScriptedReply, toolWaits: boolean, on: string) {
  const dir = await Deno.makeTempDir();
  const store = new FileSystemJSONLStore({ dir });
  const session = store.create();
  const provider = scriptedProvider([first]);
  const agent = new Agent({ config: CONFIG, session, provider });
  agent.registerTool({ decl: { name: "t", description: "t", inputSchema: { type: "object" } },
    execute: (_i, ctx) => toolWaits ? new Promise((r) => ctx.signal.addEventListener("abort", () => r(ResultParts.fromText("stopped")))) : ResultParts.fromText("ok") });
  const s = agent.run("FIRST");
  for await (const e of s) { if (e.type === on) s.cancel(); }
  console.log(name, "memory:", show(agent.conversation.messages), "state", session.info.state?.status);
  await store.close();
  const store2 = new FileSystemJSONLStore({ dir });
  const s2 = (await store2.resolve(session.id))!;
  const loaded = await s2.loadWithDangling();
  console.log(name, "resumed state", s2.info.state?.status, "dangling", loaded.danglingUser ? messageText(loaded.danglingUser) : "-");
  const provider2 = scriptedProvider(["x"]);
  const agent2 = new Agent({ config: CONFIG, session: s2, conversation: loaded.conversation, provider: provider2 });
  for await (const _ of agent2.run("SECOND"));
  console.log(name, "resumed sends:", show(provider2.requests[0]!.messages as any));
  await store2.close();
}
await scenario("a", { content: "x", waitForAbortAfter: 0 }, false, "message_start");
await scenario("c", { content: [{ type: "tool_use", id: "c1", name: "t", input: {} }], waitForAbortAfter: 1 }, false, "block_complete");
await scenario("d", [{ type: "tool_use", id: "c1", name: "t", input: {} }], true, "tool_dispatch_start");
await scenario("e-retry", new (await import("../lib/mod.ts")).ProviderError("overloaded", "busy"), false, "provider_retry");
