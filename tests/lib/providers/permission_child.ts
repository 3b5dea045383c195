/**
 * Run without net permission: one agent run against a local URL, printing
 * how it failed (the parent checks the kind, the message and that nothing
 * was retried).
 */
import { Agent } from "@panto/lib";

const agent = new Agent({
  config: {
    provider: {
      api: "openai-chat",
      baseUrl: "http://127.0.0.1:47123/v1",
      model: "m",
      reasoning: "off",
      apiKey: "k",
    },
  },
});
let retries = 0;
let error: { kind: string; message: string } | undefined;
try {
  for await (const event of agent.run("hi")) {
    if (event.type === "provider_retry") retries++;
    if (event.type === "run_error") error = event.error;
  }
} catch {
  // The run_error event says why.
}
console.log(JSON.stringify({ retries, error }));
