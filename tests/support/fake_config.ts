import { join } from "node:path";
import { FakeLlmServer } from "./fake_llm_server.ts";

/**
 * Writes `<home>/config.json` pointing panto at the fake server: model
 * `fast` (the default) on its OpenAI endpoint, `smart` on its Anthropic one.
 *
 * @param home The `PANTO_HOME` directory.
 * @param server The fake server.
 * @param extra More top-level settings (e.g. `retry`), added after the models.
 */
export async function writeFakeConfig(
  home: string,
  server: FakeLlmServer,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await Deno.writeTextFile(
    join(home, "config.json"),
    JSON.stringify({
      defaultModel: "fast",
      providers: {
        fakeopenai: { api: "openai-chat", baseUrl: server.openaiBaseUrl },
        fakeanthropic: { api: "anthropic-messages", baseUrl: server.anthropicBaseUrl },
      },
      models: {
        fast: { provider: "fakeopenai", model: "fast-model" },
        smart: { provider: "fakeanthropic", model: "smart-model" },
      },
      ...extra,
    }),
  );
}

/**
 * Runs `fn` with a fake server and a temporary `PANTO_HOME` configured for
 * it by {@linkcode writeFakeConfig}; both are gone afterwards.
 *
 * @param fn The test body, given the server and the home directory.
 */
export async function withFakeHome(
  fn: (server: FakeLlmServer, home: string) => Promise<void>,
): Promise<void> {
  const server = await FakeLlmServer.start();
  const home = await Deno.makeTempDir({ prefix: "panto-home-" });
  try {
    await writeFakeConfig(home, server);
    await fn(server, home);
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
  }
}
