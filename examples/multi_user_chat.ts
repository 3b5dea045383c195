/**
 * A multi-user chat over HTTP: `POST /chat/<user>` with a message as the body answers
 * `{ "answer": … }`, each user in a session of their own in the store `--store=` names
 * (`jsonl`, `sqlite`, `postgres` or `none`; `--location=` is its directory, file or URL,
 * loaded only when chosen). A user's messages sent while one runs wait their turn.
 *
 *     CHAT_BASE_URL=https://api.openai.com/v1 CHAT_MODEL=gpt-4o CHAT_API_KEY=… \
 *       deno run -A examples/multi_user_chat.ts --store=sqlite --location=chat.db
 *     curl -d 'Hello!' http://127.0.0.1:8000/chat/alice
 *
 * @module
 */
import { Agent, AgentSession, messageText, NullStore, type SessionStore } from "@panto/lib";

const flag = (name: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(3 + name.length);
const stores: Record<string, (at: string) => Promise<SessionStore>> = {
  jsonl: async (at) => new (await import("@panto/lib/jsonl")).FileSystemJSONLStore({ dir: at }),
  sqlite: async (at) => new (await import("@panto/lib/sqlite")).SQLiteStore({ path: at }),
  postgres: async (at) => new (await import("@panto/lib/postgres")).PostgresStore({ url: at }),
  none: () => Promise.resolve(new NullStore()),
};
const kind = flag("store") ?? "none";
if (!Object.hasOwn(stores, kind)) throw new Error(`--store=${kind}: use ${Object.keys(stores)}`);
const store = await stores[kind]!(flag("location") ?? "");
const env = (name: string, fallback = "") => Deno.env.get(`CHAT_${name}`) ?? fallback;
const [baseUrl, model] = [env("BASE_URL", "https://api.openai.com/v1"), env("MODEL", "gpt-4o")];
const apiKey = env("API_KEY");
const config = {
  provider: { api: "openai-chat", baseUrl, model, apiKey, reasoning: "off" },
} as const;
const chats = new Map<string, AgentSession>();

function chatOf(user: string): AgentSession {
  const session = () => store.create({ metadata: JSON.stringify({ user }) });
  const chat = chats.get(user) ?? new AgentSession(new Agent({ config, session: session() }));
  return chats.set(user, chat).get(user)!;
}

const listen = { port: Number(flag("port") ?? 8000), hostname: "127.0.0.1" };
const server = Deno.serve(listen, async (request) => {
  const user = new URL(request.url).pathname.match(/^\/chat\/([\w-]{1,64})$/)?.[1];
  if (request.method !== "POST" || !user) return new Response("POST /chat/<user>", { status: 404 });
  const chat = chatOf(user);
  const outcome = await chat.followUp(await request.text());
  const last = chat.agent.conversation.messages.at(-1);
  if (outcome.status !== "done" || last?.role !== "assistant") {
    return Response.json({ error: String(outcome.error ?? outcome.status) }, { status: 502 });
  }
  return Response.json({ answer: messageText(last) });
});
Deno.addSignalListener("SIGTERM", async () => {
  await Promise.all([...chats.values()].map((chat) => chat.close()));
  await server.shutdown();
  await store.close();
});
