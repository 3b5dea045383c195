import assert from "node:assert/strict";
import type { Message } from "@panto/lib";
import { replayUpdates } from "../../../cli/acp/replay_updates.ts";

const DOT = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" } as const;

Deno.test("acp replay: a prompt shows as typed with its pasted image, not its @file or shell output", () => {
  const prompt: Message = {
    role: "user",
    timestamp: "2026-12-01T00:00:00.000Z",
    content: [
      { type: "text", text: "compare @a.txt" },
      DOT,
      { type: "text", text: '<file path="a.txt">\nFILE-CONTENT\n</file>' },
      { type: "text", text: "The user ran `ls`:\n<shell_output>\nSHELL-OUTPUT\n</shell_output>" },
    ],
  };
  const answer: Message = {
    role: "assistant",
    timestamp: "2026-12-01T00:00:01.000Z",
    content: [{ type: "text", text: "Compared." }],
  };
  assert.deepEqual(replayUpdates([prompt, answer], "/project"), [
    { sessionUpdate: "user_message_chunk", content: { type: "text", text: "compare @a.txt" } },
    {
      sessionUpdate: "user_message_chunk",
      content: { type: "image", mimeType: "image/png", data: DOT.data },
    },
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Compared." } },
  ]);
});
