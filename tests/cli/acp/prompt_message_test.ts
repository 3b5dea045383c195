import assert from "node:assert/strict";
import { promptMessage } from "../../../cli/acp/prompt_message.ts";
import { UsageError } from "../../../cli/shared/errors.ts";

const PNG = "iVBORw0KGgo=";

Deno.test("promptMessage: text in order, resources inline, links named, images attached", () => {
  const message = promptMessage([
    { type: "text", text: "Fix this:" },
    { type: "resource", resource: { uri: "file:///a.ts", text: "let x = 1" } },
    { type: "resource_link", name: "b.md", title: "Spec", uri: "file:///b.md" },
    { type: "image", mimeType: "image/png", data: PNG },
    { type: "resource", resource: { uri: "file:///c.png", mimeType: "image/png", blob: PNG } },
  ]);
  assert.equal(
    message.text,
    'Fix this:\n\n<resource uri="file:///a.ts">\nlet x = 1\n</resource>\n\nResource: Spec <file:///b.md>',
  );
  assert.deepEqual(message.images, [
    { type: "image", mediaType: "image/png", data: PNG },
    { type: "image", mediaType: "image/png", data: PNG },
  ]);
});

Deno.test("promptMessage: text alone has no images field", () => {
  assert.deepEqual(promptMessage([{ type: "text", text: "hi" }]), { text: "hi" });
});

Deno.test("promptMessage: audio, a non-image blob and an unknown image type are refused by name", () => {
  const cases = [
    { block: { type: "audio", mimeType: "audio/wav", data: "AA==" } as const, error: /audio/ },
    {
      block: {
        type: "resource",
        resource: { uri: "file:///x.pdf", mimeType: "application/pdf", blob: "AA==" },
      } as const,
      error: /file:\/\/\/x\.pdf of type "application\/pdf"/,
    },
    {
      block: { type: "image", mimeType: "image/tiff", data: "AA==" } as const,
      error: /"image\/tiff": send image\/png/,
    },
  ];
  for (const { block, error } of cases) {
    assert.throws(() => promptMessage([block]), (e: unknown) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, error);
      return true;
    });
  }
});
