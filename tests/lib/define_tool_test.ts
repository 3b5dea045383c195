import assert from "node:assert/strict";
import {
  Agent,
  type AgentEvent,
  type ApiStyle,
  defineTool,
  ResultParts,
  type Tool,
} from "@panto/lib";
import { z } from "zod";
import { FakeLlmServer } from "../support/fake_llm_server.ts";

const ctx = { signal: new AbortController().signal, callId: "call_1" };

const readSchema = z.object({
  path: z.string().describe("File to read"),
  limit: z.number().int().min(1).default(100).describe("Most lines to return"),
  mode: z.enum(["text", "hex"]).optional(),
  tags: z.array(z.string()),
  range: z.object({ from: z.number(), to: z.number() }).describe("Lines to keep"),
  name: z.string().transform((value) => value.toUpperCase()),
});

/** A tool that reports the arguments it received. */
function reportingTool(): { tool: Tool; received: unknown[] } {
  const received: unknown[] = [];
  const tool = defineTool({
    name: "read",
    description: "Read a file",
    schema: readSchema,
    execute: (args) => {
      received.push(args);
      return ResultParts.fromText("ok");
    },
  });
  return { tool, received };
}

async function resultText(tool: Tool, input: Record<string, unknown>) {
  const output = await tool.execute(input, ctx);
  const { parts, isError } = Array.isArray(output) ? { parts: output, isError: false } : output;
  const part = parts[0];
  assert.ok(part?.type === "text");
  return { text: part.text, isError: isError ?? false };
}

Deno.test("defineTool sends the model the input-side JSON Schema of an object schema", () => {
  const { tool } = reportingTool();
  assert.equal(tool.decl.name, "read");
  assert.equal(tool.decl.description, "Read a file");
  assert.deepEqual(tool.decl.inputSchema, {
    type: "object",
    properties: {
      path: { type: "string", description: "File to read" },
      limit: {
        type: "integer",
        default: 100,
        description: "Most lines to return",
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
      },
      mode: { type: "string", enum: ["text", "hex"] },
      tags: { type: "array", items: { type: "string" } },
      range: {
        type: "object",
        properties: { from: { type: "number" }, to: { type: "number" } },
        required: ["from", "to"],
        description: "Lines to keep",
      },
      // A transform is described by what it accepts.
      name: { type: "string" },
    },
    // `limit` has a default, so the model may leave it out.
    required: ["path", "tags", "range", "name"],
  });
});

Deno.test("defineTool keeps strictObject's additionalProperties: false", () => {
  const tool = defineTool({
    name: "strict",
    description: "",
    schema: z.strictObject({ a: z.string() }),
    execute: () => [],
  });
  assert.equal(tool.decl.inputSchema.additionalProperties, false);
  assert.equal("$schema" in tool.decl.inputSchema, false);
});

Deno.test("defineTool refuses a schema that is not an object, naming the tool", () => {
  const define = (schema: z.ZodType) =>
    defineTool({ name: "bad_tool", description: "", schema, execute: () => [] });
  assert.throws(() => define(z.string()), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /"bad_tool".*must describe an object.*"type":"string"/);
    return true;
  });
  assert.throws(
    () => define(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })])),
    /"bad_tool".*must describe an object.*anyOf/,
  );
  assert.throws(
    () => define(z.object({ when: z.date() })),
    /"bad_tool": its schema has no JSON Schema form \(Date cannot be represented/,
  );
});

Deno.test("defineTool parses the arguments: defaults and transforms reach execute", async () => {
  const { tool, received } = reportingTool();
  const input = { path: "a.txt", tags: [], range: { from: 1, to: 2 }, name: "ab", extra: 1 };
  assert.deepEqual(await resultText(tool, input), { text: "ok", isError: false });
  // z.object strips unknown keys, as its JSON Schema (no additionalProperties) lets them through.
  assert.deepEqual(received, [
    { path: "a.txt", tags: [], range: { from: 1, to: 2 }, name: "AB", limit: 100 },
  ]);
});

Deno.test("defineTool turns bad arguments into an error result naming each bad field", async () => {
  const { tool, received } = reportingTool();
  const { text, isError } = await resultText(tool, {
    path: 7,
    tags: ["ok", 2],
    range: { from: 1 },
    name: "x",
  });
  assert.equal(isError, true);
  assert.match(text, /^Invalid arguments for read: /);
  assert.match(text, /\/path: Invalid input: expected string, received number/);
  assert.match(text, /\/tags\/1: Invalid input: expected string/);
  assert.match(text, /\/range\/to: Invalid input: expected number/);
  assert.match(text, /Fix them to match the tool's schema and call it again\.$/);
  assert.deepEqual(received, [], "execute must not run with arguments the schema rejected");
});

Deno.test("defineTool types execute's arguments from the schema (checked by deno check)", async () => {
  const seen: string[] = [];
  const tool = defineTool({
    name: "typed",
    description: "",
    schema: readSchema,
    execute: (args) => {
      // The default makes `limit` a number, and the transform's output type is kept.
      const limit: number = args.limit;
      const name: string = args.name;
      const mode: "text" | "hex" | undefined = args.mode;
      // @ts-expect-error `nope` is not in the schema.
      seen.push(String(args.nope), String(limit), name, String(mode));
      // @ts-expect-error `path` is a string, not a number.
      const wrong: number = args.path;
      void wrong;
      return [];
    },
  });
  await tool.execute({ path: "p", tags: [], range: { from: 0, to: 1 }, name: "n" }, ctx);
  assert.deepEqual(seen, ["undefined", "100", "N", "undefined"]);
});

const APIS: ApiStyle[] = ["anthropic-messages", "openai-chat"];

for (const api of APIS) {
  Deno.test(`Agent (${api}) runs a zod tool end to end`, async () => {
    const server = await FakeLlmServer.start();
    try {
      server.enqueue({
        kind: "turn",
        blocks: [
          { type: "tool_use", id: "call_1", name: "add", input: { a: 2, b: 3 } },
          // Passes the JSON Schema but not the zod refinement: only the parse can catch it.
          { type: "tool_use", id: "call_2", name: "add", input: { a: -1, b: 3 } },
        ],
      });
      server.enqueue({ kind: "turn", blocks: [{ type: "text", text: "5" }] });
      const agent = new Agent({
        config: {
          provider: {
            api,
            baseUrl: api === "anthropic-messages" ? server.anthropicBaseUrl : server.openaiBaseUrl,
            model: "fake-model",
            reasoning: "off",
            apiKey: "sk-test-define-tool",
          },
        },
      });
      agent.registerTool(defineTool({
        name: "add",
        description: "Add two numbers",
        schema: z.object({
          a: z.number().refine((n) => n >= 0, "must not be negative").describe("First"),
          b: z.number().describe("Second"),
        }),
        execute: ({ a, b }) => ResultParts.fromText(String(a + b)),
      }));
      const events: AgentEvent[] = [];
      for await (const event of agent.run("add 2 and 3")) events.push(event);

      const first = JSON.stringify(server.requests[0]!.body);
      assert.match(first, /"description":"First"/, "the JSON Schema reaches the provider");
      assert.doesNotMatch(first, /\$schema/);
      const results = events.flatMap((e) => e.type === "tool_dispatch_complete" ? [e] : []);
      assert.deepEqual(results.map((e) => e.isError), [false, true]);
      assert.deepEqual(results[0]!.result, [{ type: "text", text: "5" }]);
      assert.match(
        JSON.stringify(results[1]!.result),
        /Invalid arguments for add: \/a: must not be negative/,
      );
      assert.match(JSON.stringify(server.requests[1]!.body), /must not be negative/);
    } finally {
      await server.close();
    }
  });
}
