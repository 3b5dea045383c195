/**
 * Parse-and-assemble throughput of a large recorded-shape stream: our SSE
 * parser (Bedrock: event-stream decoder) + provider assembler beside each
 * official SDK's stream parser, in the same run. Run:
 * `deno run -A --lock=bench/bench.lock --frozen=false bench/provider_stream_bench.ts`.
 *
 * The streams are built from the recorded fixtures' event shapes (text and
 * tool-argument deltas repeated until the body reaches the target size).
 */
import Anthropic from "@anthropic-ai/sdk";
import {
  BedrockRuntimeClient,
  ConverseStreamCommand,
} from "npm:@aws-sdk/client-bedrock-runtime@3.1164.0";
import { GoogleGenAI } from "npm:@google/genai@3.3.0";
import { Readable } from "node:stream";
import OpenAI from "openai";
import { parseAnthropicStream } from "../lib/providers/anthropic_stream.ts";
import { AWS_EVENT_STREAM } from "../lib/providers/aws_eventstream.ts";
import { parseBedrockStream } from "../lib/providers/bedrock_stream.ts";
import { parseGoogleStream } from "../lib/providers/google_stream.ts";
import { parseOpenAIStream } from "../lib/providers/openai_stream.ts";
import { parseOpenAIResponsesStream } from "../lib/providers/openai_responses_stream.ts";
import { type SseEvent, SseParser } from "../lib/providers/sse.ts";
import { type BedrockWireEvent, eventStreamBytes } from "../tests/support/bedrock_frames.ts";

const TARGET_MB = Number(Deno.env.get("BENCH_MB") ?? 24);
const CHUNK = 16 * 1024;
const ROUNDS = 3;
const FIXTURES = new URL("../tests/fixtures/providers/", import.meta.url);

function anthropicBody(targetBytes: number): Uint8Array {
  const head =
    Deno.readTextFileSync(new URL("anthropic/text-hello.sse", FIXTURES)).split("\n\n")[0]! + "\n\n";
  const ev = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  const parts: string[] = [
    head,
    ev("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }),
  ];
  const textDelta = ev("content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text: "The quick brown fox jumps over the lazy dog. " },
  });
  const argDelta = ev("content_block_delta", {
    type: "content_block_delta",
    index: 1,
    delta: { type: "input_json_delta", partial_json: '"lorem ipsum dolor sit amet",' },
  });
  let size = parts.join("").length;
  while (size < targetBytes / 2) (parts.push(textDelta), size += textDelta.length);
  parts.push(ev("content_block_stop", { type: "content_block_stop", index: 0 }));
  parts.push(
    ev("content_block_start", {
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "toolu_bench", name: "write", input: {} },
    }),
  );
  parts.push(
    ev("content_block_delta", {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: '{"lines":[' },
    }),
  );
  while (size < targetBytes) (parts.push(argDelta), size += argDelta.length);
  parts.push(
    ev("content_block_delta", {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: '"end"]}' },
    }),
  );
  parts.push(ev("content_block_stop", { type: "content_block_stop", index: 1 }));
  parts.push(
    ev("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 1000 },
    }),
  );
  parts.push(ev("message_stop", { type: "message_stop" }));
  return new TextEncoder().encode(parts.join(""));
}

function openaiBody(targetBytes: number): Uint8Array {
  const base = {
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-4o-mini",
    system_fingerprint: "fp",
    usage: null,
  };
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${
      JSON.stringify({
        ...base,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      })
    }\n\n`;
  const parts = [chunk({ role: "assistant", content: "" })];
  const text = chunk({ content: "The quick brown fox jumps over the lazy dog. " });
  const args = chunk({
    tool_calls: [{ index: 0, function: { arguments: '"lorem ipsum dolor sit amet",' } }],
  });
  let size = parts[0]!.length;
  while (size < targetBytes / 2) (parts.push(text), size += text.length);
  parts.push(
    chunk({
      tool_calls: [{
        index: 0,
        id: "call_bench",
        type: "function",
        function: { name: "write", arguments: '{"lines":[' },
      }],
    }),
  );
  while (size < targetBytes) (parts.push(args), size += args.length);
  parts.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '"end"]}' } }] }));
  parts.push(chunk({}, "tool_calls"));
  parts.push(
    `data: ${
      JSON.stringify({
        ...base,
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 1000, total_tokens: 1010 },
      })
    }\n\n`,
  );
  parts.push("data: [DONE]\n\n");
  return new TextEncoder().encode(parts.join(""));
}

/**
 * A Responses stream in the API's shape (`event:` lines, sequence numbers,
 * `obfuscation` padding): a message of text deltas, then a function call of
 * argument deltas, each followed by its final forms (done events and the
 * completed response repeat the whole text and arguments, as the API does).
 */
function responsesBody(targetBytes: number): Uint8Array {
  let sequence = 0;
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: sequence++ })}\n\n`;
  const parts: string[] = [
    ev("response.created", {
      response: { id: "resp_bench", object: "response", status: "in_progress", output: [] },
    }),
  ];
  const message = { id: "msg_bench", type: "message", role: "assistant" };
  const textAt = { item_id: "msg_bench", output_index: 0, content_index: 0 };
  parts.push(
    ev("response.output_item.added", { output_index: 0, item: { ...message, content: [] } }),
    ev("response.content_part.added", {
      ...textAt,
      part: { type: "output_text", annotations: [], text: "" },
    }),
  );
  const piece = "The quick brown fox jumps over the lazy dog. ";
  let size = parts.join("").length;
  let text = "";
  // Deltas fill 80 % of the target; the final forms that repeat them fill the rest.
  while (size < targetBytes * 0.4) {
    const delta = ev("response.output_text.delta", {
      ...textAt,
      delta: piece,
      logprobs: [],
      obfuscation: "aBcDeFgH",
    });
    parts.push(delta);
    size += delta.length;
    text += piece;
  }
  const textPart = { type: "output_text", annotations: [], text };
  const doneMessage = { ...message, status: "completed", content: [textPart] };
  parts.push(
    ev("response.output_text.done", { ...textAt, text, logprobs: [] }),
    ev("response.content_part.done", { ...textAt, part: textPart }),
    ev("response.output_item.done", { output_index: 0, item: doneMessage }),
  );
  const call = { id: "fc_bench", type: "function_call", call_id: "call_bench", name: "write" };
  const argsAt = { item_id: "fc_bench", output_index: 1 };
  parts.push(
    ev("response.output_item.added", { output_index: 1, item: { ...call, arguments: "" } }),
    ev("response.function_call_arguments.delta", { ...argsAt, delta: '{"lines":[' }),
  );
  let args = '{"lines":[';
  const argPiece = '"lorem ipsum dolor sit amet",';
  while (size < targetBytes * 0.8) {
    const delta = ev("response.function_call_arguments.delta", {
      ...argsAt,
      delta: argPiece,
      obfuscation: "aBcDeFgH",
    });
    parts.push(delta);
    size += delta.length;
    args += argPiece;
  }
  args += '"end"]}';
  const doneCall = { ...call, status: "completed", arguments: args };
  parts.push(
    ev("response.function_call_arguments.delta", { ...argsAt, delta: '"end"]}' }),
    ev("response.function_call_arguments.done", { ...argsAt, arguments: args }),
    ev("response.output_item.done", { output_index: 1, item: doneCall }),
    ev("response.completed", {
      response: {
        id: "resp_bench",
        object: "response",
        status: "completed",
        output: [doneMessage, doneCall],
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 1000,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 1010,
        },
      },
    }),
  );
  return new TextEncoder().encode(parts.join(""));
}

/**
 * A Gemini stream of recorded chunks repeated (CRLF framing and Gemini's
 * JSON spacing as the API sends them): the thought chunks of
 * `thinking-text-signature-gemini25-pro` up to 40 % of the target, its
 * signed first text chunk, its text chunks up to 95 %, a signed call from
 * `tool-call-gemini3-pro`, and its final chunk (STOP and usage).
 */
function geminiBody(targetBytes: number): Uint8Array {
  const recorded = (name: string) =>
    Deno.readTextFileSync(new URL(`google-generative-ai/${name}.sse`, FIXTURES))
      .split(/(?<=\r\n\r\n)/);
  const answer = recorded("thinking-text-signature-gemini25-pro");
  const [call] = recorded("tool-call-gemini3-pro");
  const thoughts = answer.slice(0, 4);
  const texts = answer.slice(5, -1);
  const parts: string[] = [];
  let size = 0;
  const fill = (events: string[], until: number) => {
    for (let i = 0; size < until; i++) {
      const event = events[i % events.length]!;
      parts.push(event);
      size += event.length;
    }
  };
  fill(thoughts, targetBytes * 0.4);
  parts.push(answer[4]!);
  fill(texts, targetBytes * 0.95);
  parts.push(call!, answer.at(-1)!);
  return new TextEncoder().encode(parts.join(""));
}

/**
 * A ConverseStream body in the recorded shape (`thinking-signature-claude-sonnet4`,
 * `text-tool-use-nova-micro`: one binary frame a member, every payload padded
 * with `p`): reasoning deltas up to 30 % of the target, the signature, text
 * deltas up to 65 %, then a call whose argument fragments fill the rest.
 */
function bedrockBody(targetBytes: number): Uint8Array {
  const member = (type: string, payload: Record<string, unknown>): BedrockWireEvent => ({
    type,
    data: JSON.stringify({ ...payload, p: "abcdefghijklmnopqrstuvwxyzABCDEF" }),
  });
  const delta = (contentBlockIndex: number, payload: unknown) =>
    member("contentBlockDelta", { contentBlockIndex, delta: payload });
  const events: BedrockWireEvent[] = [member("messageStart", { role: "assistant" })];
  let size = 0;
  const fill = (event: BedrockWireEvent, until: number) => {
    for (; size < until; size += event.data.length + 90) events.push(event);
  };
  fill(
    delta(0, { reasoningContent: { text: "Let me count the letters one by one. " } }),
    targetBytes * 0.3,
  );
  events.push(
    delta(0, {
      reasoningContent: { signature: "EvYCCkgICxABGAIqQH+vdAorxvHnWTPEdc8BK".repeat(14) },
    }),
    member("contentBlockStop", { contentBlockIndex: 0 }),
  );
  fill(delta(1, { text: "The quick brown fox jumps over the lazy dog. " }), targetBytes * 0.65);
  events.push(
    member("contentBlockStop", { contentBlockIndex: 1 }),
    member("contentBlockStart", {
      contentBlockIndex: 2,
      start: { toolUse: { toolUseId: "tooluse_bench", name: "write" } },
    }),
    delta(2, { toolUse: { input: '{"lines":[' } }),
  );
  fill(delta(2, { toolUse: { input: '"lorem ipsum dolor sit amet",' } }), targetBytes);
  events.push(
    delta(2, { toolUse: { input: '"end"]}' } }),
    member("contentBlockStop", { contentBlockIndex: 2 }),
    member("messageStop", { stopReason: "tool_use" }),
    member("metadata", { usage: { inputTokens: 10, outputTokens: 1000, totalTokens: 1010 } }),
  );
  return eventStreamBytes(events);
}

/** The bytes in {@linkcode CHUNK}-byte views. */
function* slices(bytes: Uint8Array): Generator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += CHUNK) {
    yield bytes.subarray(offset, offset + CHUNK);
  }
}

function chunkedStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset += CHUNK));
    },
  }, { highWaterMark: 0 });
}

/** Parsed events in per-chunk batches, as `streamSse` yields them. */
async function* sseEvents(bytes: Uint8Array): AsyncGenerator<SseEvent[]> {
  const parser = new SseParser();
  for await (const chunk of chunkedStream(bytes)) {
    const events = parser.push(chunk);
    if (events.length > 0) yield events;
  }
  const last = parser.end();
  if (last.length > 0) yield last;
}

/** Decoded frames in per-chunk batches, as `streamFramed` yields them. */
async function* frameEvents(bytes: Uint8Array): AsyncGenerator<SseEvent[]> {
  const decoder = await AWS_EVENT_STREAM.decoder("http://bench");
  for await (const chunk of chunkedStream(bytes)) {
    const events = decoder.push(chunk);
    if (events.length > 0) yield events;
  }
  decoder.end();
}

async function drain<T>(generator: AsyncGenerator<unknown, T>): Promise<T> {
  let step = await generator.next();
  while (!step.done) step = await generator.next();
  return step.value;
}

const sseResponse = (bytes: Uint8Array) => () =>
  Promise.resolve(
    new Response(chunkedStream(bytes), { headers: { "content-type": "text/event-stream" } }),
  );

async function best(fn: () => Promise<void>): Promise<number> {
  let fastest = Infinity;
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    await fn();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

function row(name: string, bytes: number, ms: number): string {
  return `${name.padEnd(34)} ${(bytes / 1e6 / (ms / 1000)).toFixed(1).padStart(8)} MB/s  (${
    ms.toFixed(0)
  } ms)`;
}

const anthropicBytes = anthropicBody(TARGET_MB * 1e6);
const openaiBytes = openaiBody(TARGET_MB * 1e6);
const responsesBytes = responsesBody(TARGET_MB * 1e6);
const geminiBytes = geminiBody(TARGET_MB * 1e6);
const bedrockBytes = bedrockBody(TARGET_MB * 1e6);
console.log(
  `Stream parse + assemble, ${TARGET_MB} MB bodies in ${
    CHUNK / 1024
  } KB chunks, best of ${ROUNDS}\n`,
);

const oursA = await best(async () => {
  const result = await drain(parseAnthropicStream(sseEvents(anthropicBytes), "http://bench"));
  if (result.content.length !== 2) throw new Error("bench: unexpected assembly");
});
const sdkA = await best(async () => {
  const client = new Anthropic({
    apiKey: "bench",
    baseURL: "http://bench.invalid",
    fetch: sseResponse(anthropicBytes),
  });
  const message = await client.messages.stream({
    model: "m",
    max_tokens: 1,
    messages: [{ role: "user", content: "x" }],
  }).finalMessage();
  if (message.content.length !== 2) throw new Error("bench: unexpected SDK assembly");
});
const oursO = await best(async () => {
  const result = await drain(parseOpenAIStream(sseEvents(openaiBytes), "http://bench"));
  if (result.content.length !== 2) throw new Error("bench: unexpected assembly");
});
const sdkO = await best(async () => {
  const client = new OpenAI({
    apiKey: "bench",
    baseURL: "http://bench.invalid/v1",
    fetch: sseResponse(openaiBytes),
  });
  const completion = await client.chat.completions.stream({
    model: "m",
    messages: [{ role: "user", content: "x" }],
  }).finalChatCompletion();
  if (!completion.choices[0]?.message.tool_calls?.length) {
    throw new Error("bench: unexpected SDK assembly");
  }
});

const oursR = await best(async () => {
  const result = await drain(parseOpenAIResponsesStream(sseEvents(responsesBytes), "http://bench"));
  if (result.content.length !== 2) throw new Error("bench: unexpected assembly");
});
const sdkR = await best(async () => {
  const client = new OpenAI({
    apiKey: "bench",
    baseURL: "http://bench.invalid/v1",
    fetch: sseResponse(responsesBytes),
  });
  const response = await client.responses.stream({ model: "m", input: "x" }).finalResponse();
  if (response.output[1]?.type !== "function_call") {
    throw new Error("bench: unexpected SDK assembly");
  }
});

const oursG = await best(async () => {
  const result = await drain(parseGoogleStream(sseEvents(geminiBytes), "http://bench"));
  if (result.content.length !== 6) throw new Error("bench: unexpected assembly");
});
const sdkG = await best(async () => {
  const ai = new GoogleGenAI({
    apiKey: "bench",
    httpOptions: { baseUrl: "http://bench.invalid", fetch: sseResponse(geminiBytes) },
  });
  // What a caller of the SDK accumulates: the text, the thoughts and the calls.
  const text: string[] = [];
  const thoughts: string[] = [];
  const calls: unknown[] = [];
  for await (
    const chunk of await ai.models.generateContentStream({
      model: "m",
      contents: "x",
      config: { automaticContinuation: false },
    })
  ) {
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (part.functionCall) calls.push(part.functionCall);
      else if (part.thought) thoughts.push(part.text ?? "");
      else if (part.text !== undefined) text.push(part.text);
    }
  }
  if (calls.length !== 1 || text.join("").length === 0 || thoughts.length === 0) {
    throw new Error("bench: unexpected SDK assembly");
  }
});

const oursB = await best(async () => {
  const result = await drain(parseBedrockStream(frameEvents(bedrockBytes), "http://bench"));
  if (result.content.length !== 3) throw new Error("bench: unexpected assembly");
});
const sdkB = await best(async () => {
  // The SDK's own HTTP layer is skipped: its handler answers with the bytes in 16 KB chunks.
  const client = new BedrockRuntimeClient({
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDBENCH", secretAccessKey: "bench-not-a-secret" },
    requestHandler: {
      handle: () =>
        Promise.resolve({
          response: {
            statusCode: 200,
            headers: { "content-type": "application/vnd.amazon.eventstream" },
            body: Readable.from(slices(bedrockBytes)),
          },
        }),
    },
  });
  // What a caller of the SDK accumulates: the text, the reasoning and the call's arguments.
  const text: string[] = [];
  const reasoning: string[] = [];
  const args: string[] = [];
  const response = await client.send(
    new ConverseStreamCommand({
      modelId: "m",
      messages: [{ role: "user", content: [{ text: "x" }] }],
    }),
  );
  for await (const event of response.stream ?? []) {
    const delta = event.contentBlockDelta?.delta;
    if (delta?.text !== undefined) text.push(delta.text);
    else if (delta?.reasoningContent?.text !== undefined) {
      reasoning.push(delta.reasoningContent.text);
    } else if (delta?.toolUse?.input !== undefined) args.push(delta.toolUse.input);
  }
  if (text.length === 0 || reasoning.length === 0 || !args.join("").endsWith('"end"]}')) {
    throw new Error("bench: unexpected SDK assembly");
  }
});

console.log("Anthropic Messages");
console.log(row("  panto (SseParser + assembler)", anthropicBytes.length, oursA));
console.log(row("  @anthropic-ai/sdk messages.stream", anthropicBytes.length, sdkA));
console.log(`  ratio: ${(sdkA / oursA).toFixed(2)}x\n`);
console.log("OpenAI Chat Completions");
console.log(row("  panto (SseParser + assembler)", openaiBytes.length, oursO));
console.log(row("  openai chat.completions.stream", openaiBytes.length, sdkO));
console.log(`  ratio: ${(sdkO / oursO).toFixed(2)}x\n`);
console.log("OpenAI Responses");
console.log(row("  panto (SseParser + assembler)", responsesBytes.length, oursR));
console.log(row("  openai responses.stream", responsesBytes.length, sdkR));
console.log(`  ratio: ${(sdkR / oursR).toFixed(2)}x`);
console.log("\nGemini (Generative Language API)");
console.log(row("  panto (SseParser + assembler)", geminiBytes.length, oursG));
console.log(row("  @google/genai models.stream", geminiBytes.length, sdkG));
console.log(`  ratio: ${(sdkG / oursG).toFixed(2)}x`);
console.log("\nAmazon Bedrock ConverseStream (binary event stream)");
console.log(row("  panto (frame decoder + assembler)", bedrockBytes.length, oursB));
console.log(row("  @aws-sdk ConverseStreamCommand", bedrockBytes.length, sdkB));
console.log(`  ratio: ${(sdkB / oursB).toFixed(2)}x`);
