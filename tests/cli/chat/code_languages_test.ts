import assert from "node:assert/strict";
import type { Message } from "@panto/lib";
import { codeLanguages, drawWithLanguages } from "../../../cli/chat/code_languages.ts";
import { loadLanguages } from "@panto/tui";

function assistant(...content: Message["content"]): Message {
  return { role: "assistant", content } as Message;
}

Deno.test("code languages: the fences of the assistant's texts and thinking, not the user's", () => {
  const messages: Message[] = [
    { role: "user", content: [{ type: "text", text: "```rust\nfn main() {}\n```" }] } as Message,
    assistant(
      { type: "text", text: "Here:\n\n```python title\nx = 1\n```\n   ~~~go\npackage main\n~~~" },
      { type: "thinking", thinking: "maybe\n```elixir\n1\n```" },
    ),
    assistant({ type: "text", text: "inline ```ts``` is no fence\n```\nplain\n```" }),
  ];
  assert.deepEqual([...codeLanguages(messages)].sort(), ["elixir", "go", "python"]);
});

Deno.test("code languages: draws after loading a missing language, at once when loaded", async () => {
  const messages = [assistant({ type: "text", text: "```ocaml\nlet x = 1\n```" })];
  let drawn = false;
  const done = Promise.withResolvers<void>();
  drawWithLanguages(messages, () => {
    drawn = true;
    done.resolve();
  });
  assert.equal(drawn, false, "waits for the language");
  await done.promise;
  assert.equal(loadLanguages(["ocaml"]), undefined, "loaded before the drawing");
  let now = false;
  drawWithLanguages(messages, () => now = true);
  assert.ok(now, "drawn at once");
});
