// A long stream arriving in small chunks must not keep its chunks: a reply
// of 10,000 tool calls (about 10 MB) read in 100-byte chunks once held
// 4.9 GB, because every read was raced against one promise that settles
// only when the request stops, and each race's reaction kept its chunk.
import assert from "node:assert/strict";
import { FakeLlmServer } from "../../support/fake_llm_server.ts";

const CALLS = 10_000;
/** Generous: about 150 MB is used; the leak took over 3 GB. */
const PEAK_LIMIT_MB = 1024;

for (const api of ["openai-chat", "anthropic-messages"] as const) {
  Deno.test({
    name: `${api}: 10,000 tool calls in 100-byte chunks stream in bounded memory`,
    ignore: Deno.build.os !== "linux", // the peak is read from /proc
  }, async () => {
    const server = await FakeLlmServer.start();
    try {
      server.enqueue({
        kind: "turn",
        blocks: Array.from({ length: CALLS }, (_, i) => ({
          type: "tool_use" as const,
          id: `call_${i}`,
          name: "echo",
          input: { text: `call number ${i}` },
        })),
        chunkSize: 100,
      });
      const baseUrl = api === "openai-chat" ? server.openaiBaseUrl : server.anthropicBaseUrl;
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("./stream_memory_child.ts", import.meta.url).pathname,
          api,
          baseUrl,
        ],
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const output = await child.output();
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, stderr);
      const { events, peakKb } = JSON.parse(new TextDecoder().decode(output.stdout));
      assert.ok(events >= CALLS * 3, `every call streamed (${events} events)`);
      assert.ok(
        peakKb / 1024 < PEAK_LIMIT_MB,
        `peak resident memory ${(peakKb / 1024).toFixed(0)} MB, at most ${PEAK_LIMIT_MB} MB`,
      );
    } finally {
      await server.close();
    }
  });
}
