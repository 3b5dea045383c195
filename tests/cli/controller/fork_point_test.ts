import assert from "node:assert/strict";
import type { Message, TreeEntry } from "@panto/lib";
import { entryOfMessage } from "../../../cli/controller/fork_point.ts";

function message(role: Message["role"], second: number): Message {
  return { role, content: [], timestamp: `2026-01-01T00:00:${String(second).padStart(2, "0")}Z` };
}

function path(messages: Message[]): TreeEntry[] {
  return messages.map((m, i) => ({ id: `e${i}`, parentId: i ? `e${i - 1}` : null, message: m }));
}

Deno.test("fork point: messages map to their entries past prompts the conversation left out", () => {
  const [q1, a1, lost, q2, a2] = [
    message("user", 1),
    message("assistant", 2),
    message("user", 3),
    message("user", 4),
    message("assistant", 5),
  ];
  const stored = path([q1!, a1!, lost!, q2!, a2!]);
  const conversation = [q1!, a1!, q2!, a2!];
  assert.equal(entryOfMessage(stored, conversation, 4), "e4");
  assert.equal(entryOfMessage(stored, conversation, 3), "e3");
  assert.equal(entryOfMessage(stored, conversation, 2), "e1");
  assert.equal(entryOfMessage(stored, [...conversation, message("user", 6)], 5), undefined);
});

Deno.test("fork point: compaction copies (same timestamp as their originals) map to the copies", () => {
  const [q1, a1] = [message("user", 1), message("assistant", 2)];
  const summary = message("user", 3);
  const conversation = [q1!, a1!, summary, structuredClone(q1!), structuredClone(a1!)];
  const stored = path(conversation);
  assert.equal(entryOfMessage(stored, conversation, 5), "e4");
  assert.equal(entryOfMessage(stored, conversation, 2), "e1");
});
