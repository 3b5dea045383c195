import { join } from "node:path";
import type { FakeLlmServer } from "./fake_llm_server.ts";

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
