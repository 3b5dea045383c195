/**
 * The SSE parser against every vector of `tests/fixtures/sse-parser-vectors.md`
 * (strict spec behaviour), fed whole, in the vector's own chunks, split at
 * every byte offset and in seeded random chunks; plus every recorded
 * provider stream replayed in random chunks.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { concatBytes } from "../../../lib/concat_bytes.ts";
import { type SseEvent, SseParser } from "../../../lib/providers/sse.ts";
import { randomChunks, seededRandom } from "../../support/chunked_sse.ts";
import { PROVIDER_FIXTURES_DIR } from "../../support/fake_llm_server.ts";

const encoder = new TextEncoder();

/** An expected event; `id` is checked only when given. */
interface Expected {
  type: string;
  data: string;
  id?: string;
}

interface Vector {
  name: string;
  /** The reads, in order: text is encoded to UTF-8 bytes, arrays are raw bytes. */
  chunks: readonly (string | readonly number[])[];
  expected: readonly Expected[];
  /** Expected `retry` after the whole stream, when the vector says. */
  retry?: number;
}

const X = "x".repeat(2048);

const VECTORS: readonly Vector[] = [
  { name: "V1 minimal event", chunks: ["data: hello\n\n"], expected: [msg("hello")] },
  { name: "V2 named event", chunks: ["event: ping\ndata: {}\n\n"], expected: [ev("ping", "{}")] },
  { name: "V3 multi-line data", chunks: ["data: a\ndata: b\n\n"], expected: [msg("a\nb")] },
  {
    name: "V4 multi-line JSON with empty data lines",
    chunks: [
      "event: ping\n",
      "data: {\n",
      'data: "foo":\n',
      "data: \n",
      "data:\n",
      "data: true}\n",
      "\n\n",
    ],
    expected: [ev("ping", '{\n"foo":\n\n\ntrue}')],
  },
  {
    name: "V5 lone CR line endings",
    chunks: ["data: dog\rdata: bark\r\rdata: cat\r\r"],
    expected: [msg("dog\nbark"), msg("cat")],
  },
  {
    name: "V6 CRLF line endings",
    chunks: ["data: sheep\r\ndata: bleat\r\n\r\n"],
    expected: [msg("sheep\nbleat")],
  },
  {
    name: "V7 comment fest",
    chunks: [
      "data:1\r:\u0000\n:\r\ndata:2\n:" + X + "\rdata:3\n:data:fail\r:" + X + "\ndata:4\n\n",
    ],
    expected: [msg("1\n2\n3\n4")],
  },
  {
    name: "V8 CRLF split across chunks inside one event",
    chunks: ["data: A\r\n", "data: B\r", "\n", "data: C\r\n", "\n"],
    expected: [msg("A\nB\nC")],
  },
  {
    name: "V9 blank line with split CRLF after a CR line",
    chunks: ["data: one\r", "\r", "\n"],
    expected: [msg("one")],
  },
  {
    name: "V10 lone CR at chunk end, next chunk without LF",
    chunks: ["data: x\r", "data: y\r", "\r"],
    expected: [msg("x\ny")],
  },
  { name: "V11a terminator split", chunks: ["data: hi\n", "\n"], expected: [msg("hi")] },
  { name: "V11b terminator split twice", chunks: ["data: hi", "\n", "\n"], expected: [msg("hi")] },
  {
    name: "V12 leading BOM stripped, later BOM not",
    chunks: ["\uFEFFdata:1\n\n\uFEFFdata:2\n\ndata:3\n\n"],
    expected: [msg("1"), msg("3")],
  },
  {
    name: "V13 two leading BOMs: only one stripped",
    chunks: ["\uFEFF\uFEFFdata:1\n\ndata:2\n\ndata:3\n\n"],
    expected: [msg("2"), msg("3")],
  },
  {
    name: "V14 BOM bytes split across chunks",
    chunks: [[0xef], [0xbb, 0xbf, ...encoder.encode("data: hi\n\n")]],
    expected: [msg("hi")],
  },
  {
    name: "V15 comments and keep-alives",
    chunks: [": keep-alive\n\n:\ndata: x\n\n"],
    expected: [msg("x")],
  },
  {
    name: "V16 field without colon, empty data values",
    chunks: ["data:\n\ndata\ndata\n\ndata:test\n\n"],
    expected: [msg(""), msg("\n"), msg("test")],
  },
  {
    name: "V17 exactly one leading space removed",
    chunks: ["data:  two\n\ndata:none\n\ndata: \n\n"],
    expected: [msg(" two"), msg("none"), msg("")],
  },
  {
    name: "V18 space before colon or at line start belongs to the name",
    chunks: [" data: x\n\ndata : y\n\n"],
    expected: [],
  },
  { name: "V19 field names are case-sensitive", chunks: ["Data: x\n\n"], expected: [] },
  {
    name: "V20a empty event value means message",
    chunks: ["event: \ndata:data\n\n"],
    expected: [msg("data")],
  },
  {
    name: "V20b event type resets after dispatch",
    chunks: ["event:test\ndata:x\n\ndata:x\n\n"],
    expected: [ev("test", "x"), msg("x")],
  },
  { name: "V21 event without data is not dispatched", chunks: ["event: ping\n\n"], expected: [] },
  {
    name: "V22 unterminated event at EOF is discarded",
    chunks: ["retry:1000\ndata:test1\n\nid:test\ndata:test2"],
    expected: [{ type: "message", data: "test1", id: "" }],
    retry: 1000,
  },
  {
    name: "V23 multi-byte UTF-8 split across chunks",
    chunks: [
      "event: completion\n",
      'data: {"content": "',
      [0xd0],
      [0xb8, 0xd0, 0xb7, 0xd0],
      [0xb2, 0xd0, 0xb5, 0xd1, 0x81, 0xd1, 0x82, 0xd0, 0xbd, 0xd0, 0xb8],
      '"}\n',
      "\n",
    ],
    expected: [ev("completion", '{"content": "известни"}')],
  },
  {
    name: "V24 U+2028 inside JSON is not a line break",
    chunks: [
      'data: {"content": "culpa "}\n\n',
      'data: {"content": "',
      [0xe2, 0x80, 0xa8],
      '"}\n\n',
      'data: {"content": "foo"}\n\n',
    ],
    expected: [
      msg('{"content": "culpa "}'),
      msg('{"content": "\u2028"}'),
      msg('{"content": "foo"}'),
    ],
  },
  {
    name: "V24b U+2029 and U+0085 are not line breaks either",
    chunks: ['data: {"a": "\u2029"}\n\n', 'data: {"b": "\u0085"}\n\n'],
    expected: [msg('{"a": "\u2029"}'), msg('{"b": "\u0085"}')],
  },
  {
    name: "V25 escaped \\n\\n inside JSON is not a boundary",
    chunks: ['event: ping\ndata: {"foo": "my long\\n\\ncontent"}\n\n'],
    expected: [ev("ping", '{"foo": "my long\\n\\ncontent"}')],
  },
  { name: "V26a NUL is ordinary data", chunks: ["data:\u0000\n\n"], expected: [msg("\u0000")] },
  {
    name: "V26b id with NUL is ignored",
    chunks: ["id: 123\nid: bad\u0000id\ndata: hello\n\n"],
    expected: [{ type: "message", data: "hello", id: "123" }],
  },
  {
    name: "V27 retry that is not all digits is ignored",
    chunks: ["retry:2000\nretry:1000x\ndata:x\n\n"],
    expected: [msg("x")],
    retry: 2000,
  },
  {
    name: "V28 unknown fields between data lines",
    chunks: ["data: abc\nfoo: bar\ndata:\ndata: 123\n\n"],
    expected: [msg("abc\n\n123")],
  },
  {
    name: "V29 several events in one chunk",
    chunks: ["data: 1\n\ndata: 2\n\ndata: 3\n\n"],
    expected: [msg("1"), msg("2"), msg("3")],
  },
  { name: "V30 field name split across chunks", chunks: ["da", "ta: x\n\n"], expected: [msg("x")] },
  {
    // The parser never looks at a charset label: the bytes are always UTF-8.
    name: "V31 always UTF-8",
    chunks: [[...encoder.encode("data:ok"), 0xe2, 0x80, 0xa6, ...encoder.encode("\n\n")]],
    expected: [msg("ok…")],
  },
  {
    name: "V32 [DONE] is plain data",
    chunks: ["data: [DONE]\n\ndata:[DONE]\n\n"],
    expected: [msg("[DONE]"), msg("[DONE]")],
  },
  { name: "V33 blank lines only", chunks: ["\n\n\r\n\r"], expected: [] },
];

function msg(data: string): Expected {
  return { type: "message", data };
}

function ev(type: string, data: string): Expected {
  return { type, data };
}

function toBytes(chunk: string | readonly number[]): Uint8Array {
  return typeof chunk === "string" ? encoder.encode(chunk) : Uint8Array.from(chunk);
}

/** Feeds the reads to a fresh parser, then ends the stream. */
function parse(reads: readonly (Uint8Array | string)[]): { events: SseEvent[]; parser: SseParser } {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (const read of reads) events.push(...parser.push(read));
  events.push(...parser.end());
  return { events, parser };
}

function assertEvents(actual: readonly SseEvent[], expected: readonly Expected[], how: string) {
  const shaped = actual.map((event, i) => {
    const want = expected[i];
    return want?.id === undefined
      ? { type: event.type, data: event.data }
      : { type: event.type, data: event.data, id: event.id };
  });
  assert.deepEqual(shaped, expected, how);
}

for (const vector of VECTORS) {
  Deno.test(`SseParser ${vector.name}`, async (t) => {
    const chunks = vector.chunks.map(toBytes);
    const whole = concatBytes(chunks);

    await t.step("given chunks, as bytes", () => {
      const { events, parser } = parse(chunks);
      assertEvents(events, vector.expected, "given chunks");
      if (vector.retry !== undefined) assert.equal(parser.retry, vector.retry);
    });

    await t.step("whole, as bytes", () => {
      assertEvents(parse([whole]).events, vector.expected, "whole bytes");
    });

    if (vector.chunks.every((chunk) => typeof chunk === "string")) {
      await t.step("given chunks, as strings", () => {
        assertEvents(parse(vector.chunks as string[]).events, vector.expected, "string chunks");
      });
    }

    await t.step("split at every byte offset", () => {
      for (let cut = 0; cut <= whole.length; cut++) {
        const { events } = parse([whole.subarray(0, cut), whole.subarray(cut)]);
        assertEvents(events, vector.expected, `split at byte ${cut}`);
      }
    });

    await t.step("one byte at a time and random splits", () => {
      assertEvents(parse(randomChunks(whole, () => 0, 1)).events, vector.expected, "1-byte reads");
      const random = seededRandom(vector.name.length * 7919);
      for (let round = 0; round < 20; round++) {
        const parts = randomChunks(whole, random, 9);
        assertEvents(parse(parts).events, vector.expected, `random split round ${round}`);
      }
    });
  });
}

Deno.test("SseParser: a BOM in a later string push is not stripped", () => {
  const parser = new SseParser();
  const events = [
    ...parser.push("data:1\n\n"),
    ...parser.push("\uFEFFdata:2\n\n"),
    ...parser.end(),
  ];
  assert.deepEqual(events.map((e) => e.data), ["1"]);
});

Deno.test("SseParser: a dangling CR at end of stream still ends its line", () => {
  const parser = new SseParser();
  const events = [...parser.push("data: a\n\r"), ...parser.end()];
  assert.deepEqual(events.map((e) => e.data), ["a"]);
});

Deno.test("SseParser: a truncated UTF-8 sequence at EOF does not dispatch the open event", () => {
  const { events } = parse([encoder.encode("data: ok\n\ndata: "), Uint8Array.of(0xe2, 0x80)]);
  assert.deepEqual(events.map((e) => e.data), ["ok"]);
});

async function fixtureFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) files.push(...await fixtureFiles(path));
    else if (entry.name.endsWith(".sse")) files.push(path);
  }
  return files.sort();
}

/** Lines a strict parser turns into one event each (V18's ` data:` line is not one). */
function countDataLines(text: string): number {
  return text.split("\n").filter((line) => line.startsWith("data:")).length;
}

Deno.test("SseParser: every recorded provider stream parses the same whole and in random chunks", async (t) => {
  const files = await fixtureFiles(PROVIDER_FIXTURES_DIR);
  assert.ok(files.length >= 40, `expected the recorded fixtures in ${PROVIDER_FIXTURES_DIR}`);
  for (const file of files) {
    await t.step(file.slice(PROVIDER_FIXTURES_DIR.length), async () => {
      const bytes = await Deno.readFile(file);
      const text = new TextDecoder().decode(bytes);
      const whole = parse([bytes]).events;
      assert.equal(whole.length, countDataLines(text), "one event per data: line");
      for (const event of whole) {
        if (event.data.trim() !== "[DONE]") JSON.parse(event.data);
      }
      const random = seededRandom(bytes.length);
      for (let round = 0; round < 3; round++) {
        assert.deepEqual(parse(randomChunks(bytes, random, 9)).events, whole, `round ${round}`);
      }
    });
  }
});
