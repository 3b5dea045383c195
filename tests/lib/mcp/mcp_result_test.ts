import assert from "node:assert/strict";
import { mcpResultParts } from "../../../lib/mcp/mcp_result.ts";
import { mcpToolName, mcpToolNames } from "../../../lib/mcp/mcp_tool_name.ts";
import { parseConfigFile } from "../../../cli/config/parse_config_file.ts";
import { UsageError } from "../../../cli/shared/errors.ts";

Deno.test("MCP results: what panto cannot send becomes a line saying what was left out", () => {
  const { parts, isError } = mcpResultParts({
    content: [
      { type: "image", data: "AAAA", mimeType: "image/tiff" },
      { type: "audio", data: "AAAAAAAA", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///a.png", mimeType: "image/png", blob: "iVBO" } },
      {
        type: "resource",
        resource: { uri: "file:///a.zip", mimeType: "application/zip", blob: "UEsD" },
      },
    ],
  });
  assert.equal(isError, false);
  assert.deepEqual(parts, [
    { type: "text", text: "[image image/tiff, 3 bytes not shown]" },
    { type: "text", text: "[audio audio/wav, 6 bytes not shown]" },
    { type: "image", mediaType: "image/png", data: "iVBO" },
    { type: "text", text: "[resource <file:///a.zip> application/zip, 3 bytes not shown]" },
  ]);
});

Deno.test("MCP results: structured content alone is sent as JSON; nothing at all says so", () => {
  assert.deepEqual(mcpResultParts({ content: [], structuredContent: { n: 1 } }).parts, [
    { type: "text", text: '{\n  "n": 1\n}' },
  ]);
  assert.deepEqual(mcpResultParts({}).parts, [{ type: "text", text: "(no output)" }]);
});

Deno.test("MCP tool names: namespaced, wire-safe, long ones cut with a stable hash", () => {
  assert.equal(mcpToolName("my.server", "read file"), "my_server__read_file");
  const long = mcpToolName("s", `${"x".repeat(80)}a`);
  const other = mcpToolName("s", `${"x".repeat(80)}b`);
  assert.equal(long.length, 64);
  assert.match(long, /^[A-Za-z0-9_-]+$/);
  assert.notEqual(long, other);
  assert.equal(long, mcpToolName("s", `${"x".repeat(80)}a`));
});

Deno.test("MCP results: a 50 MB text is cut to the built-in tools' limits with bash's note", () => {
  const line = `${"x".repeat(49)}\n`;
  const huge = line.repeat(1_000_000);
  const started = performance.now();
  const { parts } = mcpResultParts({
    content: [{ type: "text", text: "header" }, { type: "text", text: huge }, {
      type: "text",
      text: "never shown",
    }],
  });
  console.log(`50 MB result cut in ${(performance.now() - started).toFixed(0)} ms`);
  const texts = parts.map((part) => (part.type === "text" ? part.text : ""));
  const size = new TextEncoder().encode(texts.join("\n")).length;
  assert.ok(size < 52 * 1024, `${size} bytes`);
  assert.equal(texts[0], "header");
  assert.equal(parts.length, 3, "the third part is left out, a note added");
  assert.equal(
    texts[2],
    "[Output truncated: showing lines 1-1024 of 1000002 (47.7 MB in all). The rest was left out: ask the tool for less if it can (a narrower query, a page, a limit).]",
  );
});

Deno.test("MCP results: one huge line shows its start; at most 2000 lines; small results stay whole", () => {
  const [start, note] = mcpResultParts({ content: [{ type: "text", text: "y".repeat(200_000) }] })
    .parts.map((part) => (part.type === "text" ? part.text : ""));
  assert.equal(start, "y".repeat(50 * 1024));
  assert.match(note!, /^\[Output truncated: showing the start of line 1 of 1 \(195\.3 KB in all\)/);
  const lines = Array.from({ length: 3000 }, (_, i) => `${i + 1}`).join("\n");
  const [kept, linesNote] = mcpResultParts({ content: [{ type: "text", text: lines }] }).parts;
  assert.equal(kept?.type === "text" && kept.text.split("\n").length, 2000);
  assert.match(JSON.stringify(linesNote), /showing lines 1-2000 of 3000/);
  const json = mcpResultParts({ structuredContent: { items: Array(100_000).fill("item") } }).parts;
  assert.match(JSON.stringify(json.at(-1)), /Output truncated: showing lines 1-2000 of 100004/);
  assert.deepEqual(mcpResultParts({ content: [{ type: "text", text: "small" }] }).parts, [
    { type: "text", text: "small" },
  ]);
});

Deno.test("MCP results: an image over 10 MB, or past 20 MB of images, is described instead", () => {
  const image = (megabytes: number) => ({
    type: "image",
    mimeType: "image/png",
    data: "A".repeat(Math.ceil(megabytes * 1024 * 1024 * 4 / 3)),
  });
  const { parts } = mcpResultParts({
    content: [image(11), image(9), image(9), image(9), {
      type: "resource",
      resource: { uri: "file:///big.png", mimeType: "image/png", blob: image(12).data },
    }],
  });
  assert.deepEqual(parts.map((part) => part.type === "text" ? part.text : part.type), [
    "[image image/png, 11534336 bytes not shown: over the 10.0 MB limit for an image]",
    "image",
    "image",
    "[image image/png, 9437184 bytes not shown: over the 20.0 MB limit for a result's images]",
    "[image image/png, 12582912 bytes not shown: over the 10.0 MB limit for an image]",
  ]);
});

Deno.test("MCP tool names: names that encode alike get a stable hash each; exact names stay", () => {
  const names = mcpToolNames("s", ["a.b", "a_b", "a b", "c.d", "e"]);
  assert.equal(new Set(names).size, 5);
  assert.equal(names[1], "s__a_b");
  assert.match(names[0]!, /^s__a_b_[0-9a-f]{8}$/);
  assert.match(names[2]!, /^s__a_b_[0-9a-f]{8}$/);
  assert.deepEqual(names.slice(3), ["s__c_d", "s__e"], "no collision: the plain encoding");
  // The same tool keeps its name whatever else is listed, and in any order.
  assert.equal(mcpToolNames("s", ["a b", "a.b"])[1], names[0]);
  assert.deepEqual(mcpToolNames("s", ["a b", "a.b", "a_b"]), [names[2], names[0], names[1]]);
  // Two that both need changing, none exact.
  const [dot, space] = mcpToolNames("s", ["x.y", "x y"]);
  assert.notEqual(dot, space);
  assert.ok(dot!.startsWith("s__x_y_") && space!.startsWith("s__x_y_"));
  // Long names that only differ past the cut were already apart.
  const long = mcpToolNames("s", [`${"x".repeat(80)}.a`, `${"x".repeat(80)}.b`]);
  assert.ok(long.every((name) => name.length === 64) && long[0] !== long[1]);
});

Deno.test("mcpServers config: a server needs command or url, not both; env values never shown", async () => {
  const parse = (servers: unknown) =>
    parseConfigFile(JSON.stringify({ mcpServers: servers }), "config.json");
  assert.deepEqual((await parse({ git: { command: "mcp-git", args: ["-v"] } })).mcpServers, {
    git: { command: "mcp-git", args: ["-v"] },
  });
  await assert.rejects(
    () => parse({ both: { command: "x", url: "https://example.com/mcp" } }),
    (error: Error) =>
      error instanceof UsageError && /mcpServers\.both\.command/.test(error.message) &&
      /either command \(stdio\) or url \(http\)/.test(error.message),
  );
  await assert.rejects(
    () => parse({ web: { type: "http", command: "x" } }),
    (error: Error) => error instanceof UsageError && /needs "url"/.test(error.message),
  );
  await assert.rejects(
    () => parse({ git: { command: "x", env: { TOKEN: 12345 } } }),
    (error: Error) => error instanceof UsageError && !error.message.includes("12345"),
  );
});
