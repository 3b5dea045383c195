// Streams one reply from the fake server through a built-in provider and
// prints the process's peak resident memory (kB): see stream_memory_test.ts.
import { streamForApi } from "../../../lib/providers/registry.ts";

const [api, baseUrl] = Deno.args as [string, string];
const stream = streamForApi(api)({
  config: { api, baseUrl, model: "fake-model", reasoning: "off", apiKey: "k" },
  system: "",
  messages: [{ role: "user", content: [{ type: "text", text: "go" }], timestamp: "" }],
  tools: [],
  signal: new AbortController().signal,
  idleTimeoutMs: 120_000,
});
let events = 0;
for (let step = await stream.next(); !step.done; step = await stream.next()) {
  events += step.value.length;
}
const status = await Deno.readTextFile("/proc/self/status");
const peak = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]);
console.log(JSON.stringify({ events, peakKb: peak }));
