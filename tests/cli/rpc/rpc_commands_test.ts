import assert from "node:assert/strict";
import { parseCommand, RPC_COMMAND_TYPES } from "../../../cli/rpc/rpc_commands.ts";

function invalid(line: string) {
  const parsed = parseCommand(line);
  assert.ok("invalid" in parsed, `expected ${line} to be refused`);
  return parsed.invalid;
}

Deno.test("parseCommand: a valid command keeps its id and fields", () => {
  const parsed = parseCommand(
    '{"id":"r1","type":"set_model","model":"smart","thinkingLevel":"high"}',
  );
  assert.deepEqual(parsed, {
    command: { id: "r1", type: "set_model", model: "smart", thinkingLevel: "high" },
  });
  assert.deepEqual(parseCommand('{"type":"abort","id":7}'), { command: { type: "abort", id: 7 } });
});

Deno.test("parseCommand: images come out as panto image blocks, from mediaType or pi's mimeType", () => {
  const png = btoa("not really a png");
  const parsed = parseCommand(JSON.stringify({
    type: "prompt",
    message: "look",
    images: [{ type: "image", data: png, mimeType: "image/png" }, {
      data: png,
      mediaType: "image/gif",
    }],
  }));
  assert.ok("command" in parsed && parsed.command.type === "prompt");
  assert.deepEqual(parsed.command.images, [
    { type: "image", mediaType: "image/png", data: png },
    { type: "image", mediaType: "image/gif", data: png },
  ]);
});

Deno.test("parseCommand: invalid JSON is named as such", () => {
  const error = invalid('{"type": "prompt", ');
  assert.equal(error.id, undefined);
  assert.equal(error.command, undefined);
  assert.match(error.error, /^invalid JSON: /);
});

Deno.test("parseCommand: a JSON value that is not an object", () => {
  assert.match(invalid("[1,2]").error, /one JSON object .*got a list/);
  assert.match(invalid("42").error, /got 42/);
});

Deno.test("parseCommand: a missing or unknown type lists the commands and suggests the nearest", () => {
  const missing = invalid('{"id":"a","message":"hi"}');
  assert.equal(missing.id, "a");
  assert.match(missing.error, /missing "type"/);
  for (const type of RPC_COMMAND_TYPES) assert.ok(missing.error.includes(type));
  const typo = invalid('{"id":3,"type":"promt","message":"hi"}');
  assert.equal(typo.id, 3);
  assert.equal(typo.command, undefined);
  assert.match(typo.error, /unknown command "promt" \(did you mean "prompt"\?\)/);
});

Deno.test("parseCommand: a bad field is named with what was expected and found", () => {
  const missing = invalid('{"id":"x","type":"prompt"}');
  assert.deepEqual(missing, {
    id: "x",
    command: "prompt",
    error: "prompt: message: missing; expected a string",
  });
  const level = invalid('{"type":"set_thinking_level","level":"max"}');
  assert.equal(level.command, "set_thinking_level");
  assert.match(
    level.error,
    /level: expected one of "off", "minimal", "low", "medium", "high", "xhigh", got "max"/,
  );
  const index = invalid('{"type":"fork","messageIndex":-1}');
  assert.match(index.error, /messageIndex: expected a number >= 0, got -1/);
});

Deno.test("parseCommand: unknown fields are refused with the nearest known one", () => {
  assert.match(
    invalid('{"type":"prompt","mesage":"hi","message":"hi"}').error,
    /unknown field "mesage" \(did you mean "message"\?\)/,
  );
  const image = invalid(
    JSON.stringify({
      type: "prompt",
      message: "m",
      images: [{ data: "AAAA", mediaTyp: "image/png" }],
    }),
  );
  assert.match(image.error, /images\[0\]: unknown field "mediaTyp" \(did you mean "mediaType"\?\)/);
});

Deno.test("parseCommand: images need base64 data of a supported media type", () => {
  const noType = invalid(
    JSON.stringify({ type: "prompt", message: "m", images: [{ data: "AAAA" }] }),
  );
  assert.match(noType.error, /images\[0\]\.mediaType: missing; expected one of "image\/png"/);
  const bmp = invalid(
    JSON.stringify({
      type: "prompt",
      message: "m",
      images: [{ data: "AAAA", mediaType: "image/bmp" }],
    }),
  );
  assert.match(bmp.error, /images\[0\]\.mediaType: expected one of .*got "image\/bmp"/);
  const notBase64 = invalid(
    JSON.stringify({
      type: "prompt",
      message: "m",
      images: [{ data: "%%%", mediaType: "image/png" }],
    }),
  );
  assert.match(notBase64.error, /images\[0\]\.data/);
});

Deno.test("parseCommand: a prompt needs text or an image", () => {
  assert.match(
    invalid('{"type":"prompt","message":"  "}').error,
    /prompt: message: expected some text \(or an image\), got " {2}"$/,
  );
  const imageOnly = parseCommand(
    JSON.stringify({
      type: "prompt",
      message: "",
      images: [{ data: "AAAA", mediaType: "image/png" }],
    }),
  );
  assert.ok("command" in imageOnly);
});
