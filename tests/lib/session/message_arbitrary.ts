import fc from "fast-check";
import {
  API_STYLES,
  type ContentBlock,
  type Message,
  type ResultPart,
  ROLES,
  STOP_REASONS,
  type Usage,
} from "@panto/lib";

/** Any Unicode text, well-formed (stores keep UTF-8, which has no lone surrogates). */
const text = fc.string({ unit: "binary", maxLength: 24 });
const count = fc.nat({ max: 1_000_000 });
/** A JSON value as JSON can hold it (`-0` is written as `0`), in well-formed text. */
const json = fc.jsonValue({ maxDepth: 2 })
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown)
  .filter((value) => JSON.stringify(value).isWellFormed());

/** Fields a newer panto (or an embedder) might add: a store must keep them. */
const unknownFields = fc.dictionary(
  fc.constantFrom("x-future", "xExtra", "annotations", "__proto__"),
  json,
  { maxKeys: 2, noNullPrototype: true },
);

/** An object with the given fields, some optional, plus unknown fields. */
function loose<T>(
  fields: { [K in keyof T]: fc.Arbitrary<T[K]> },
  optional: readonly (keyof T)[] = [],
): fc.Arbitrary<T> {
  const keys = Object.keys(fields) as (keyof T)[];
  const requiredKeys = keys.filter((key) => !optional.includes(key));
  return fc.tuple(fc.record(fields, { requiredKeys }), unknownFields)
    .map(([known, extra]) => ({ ...extra, ...known }) as T);
}

const textPart = loose({ type: fc.constant("text" as const), text });
const imagePart = loose({
  type: fc.constant("image" as const),
  mediaType: fc.constantFrom("image/png", "image/jpeg"),
  data: fc.base64String({ maxLength: 16 }),
});
const resultPart: fc.Arbitrary<ResultPart> = fc.oneof(textPart, imagePart);

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  textPart,
  imagePart,
  loose({ type: fc.constant("thinking" as const), thinking: text, signature: text }, [
    "signature",
  ]),
  loose({ type: fc.constant("redacted_thinking" as const), data: text }),
  loose({
    type: fc.constant("tool_use" as const),
    id: text,
    name: text,
    input: fc.dictionary(text, json, { maxKeys: 3, noNullPrototype: true }),
    invalidInput: text,
  }, ["invalidInput"]),
  loose({
    type: fc.constant("tool_result" as const),
    toolUseId: text,
    toolName: text,
    content: fc.array(resultPart, { maxLength: 3 }),
    isError: fc.boolean(),
    durationMs: count,
  }, ["durationMs"]),
  loose({
    type: fc.constant("system" as const),
    text,
    mode: fc.constantFrom("append" as const, "replace" as const),
  }),
  loose({
    type: fc.constant("compaction_summary" as const),
    summary: text,
    tokensBefore: count,
    keptMessages: count,
  }, ["tokensBefore", "keptMessages"]),
);

const usage: fc.Arbitrary<Usage> = loose({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  reasoningTokens: count,
});

/**
 * Any message: every role, every block type, every optional field present
 * or absent, and unknown fields on the message, its blocks and its usage.
 */
export const anyMessage: fc.Arbitrary<Message> = loose({
  role: fc.constantFrom(...ROLES),
  content: fc.array(block, { maxLength: 4 }),
  timestamp: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  stopReason: fc.constantFrom(...STOP_REASONS),
  errorMessage: text,
  usage,
  api: fc.oneof(fc.constantFrom(...API_STYLES), text.filter((name) => name !== "")),
  model: text,
  metadata: text,
}, ["stopReason", "errorMessage", "usage", "api", "model", "metadata"]);
