import assert from "node:assert/strict";
import type { SessionInfo } from "@panto/lib";
import { formatAge, sessionItems, sessionPicker } from "../../../cli/chat/session_picker.ts";

const NOW = Date.parse("2026-12-01T12:00:00Z");

function info(
  id: string,
  cwd: string | undefined,
  prompt: string,
  minutesAgo: number,
): SessionInfo {
  return {
    id,
    created: new Date(NOW - minutesAgo * 60_000).toISOString(),
    modified: new Date(NOW - minutesAgo * 60_000).toISOString(),
    messageCount: 3,
    lastUserMessage: prompt,
    ...(cwd === undefined ? {} : { cwd }),
  };
}

Deno.test("formatAge: the largest whole unit", () => {
  const ago = (ms: number) => formatAge(NOW - ms, NOW);
  assert.equal(ago(30_000), "just now");
  assert.equal(ago(5 * 60_000), "5m ago");
  assert.equal(ago(3 * 3_600_000), "3h ago");
  assert.equal(ago(2 * 86_400_000), "2d ago");
  assert.equal(ago(45 * 86_400_000), "6w ago");
  assert.equal(formatAge(NaN, NOW), "just now");
});

Deno.test("sessionItems: one column per field, names and prompts on one safe line", () => {
  const items = sessionItems(
    [
      { ...info("a", "/p", "short", 5), name: "named\x1b[2J one" },
      info("b", "/q", "a much\nlonger prompt", 120),
    ],
    true,
    NOW,
  );
  assert.deepEqual(items.map((i) => i.label), ["named one".padEnd(20), "a much longer prompt"]);
  assert.deepEqual(items.map((i) => i.description), [
    "5m ago · 3 messages · /p",
    "2h ago · 3 messages · /q",
  ]);
  const first = sessionItems(
    [{ ...info("d", "/p", "latest", 1), firstUserMessage: "opening" }],
    false,
    NOW,
  );
  assert.deepEqual(first.map((i) => i.label), ["opening"], "the first prompt, not the last");
  const long = sessionItems([info("c", "/p", "x".repeat(80), 1)], false, NOW)[0]!;
  assert.equal(long.label, `${"x".repeat(49)}…`);
  assert.equal(long.description, "1m ago · 3 messages");
});

Deno.test("sessionPicker: this directory's first, tab toggles to all; none here shows all", () => {
  const sessions = [info("1", "/other", "elsewhere", 1), info("2", "/here", "here", 2)];
  const picker = sessionPicker(sessions, "/here", NOW);
  assert.equal(picker.title, "Sessions in /here");
  assert.deepEqual(picker.items.map((i) => i.value), ["2"]);
  assert.equal(picker.hint, "tab all directories");
  const all = picker.toggle!.view(1);
  assert.equal(all.title, "All sessions");
  assert.deepEqual(all.items.map((i) => i.value), ["1", "2"]);
  assert.match(all.items[0]!.description!, /· \/other$/);
  assert.equal(picker.toggle!.view(2).title, "Sessions in /here");

  const nowhere = sessionPicker(sessions, "/empty", NOW);
  assert.equal(nowhere.title, "All sessions (none in /empty)");
  assert.deepEqual(nowhere.items.map((i) => i.value), ["1", "2"]);
  assert.equal(nowhere.toggle, undefined);
});
