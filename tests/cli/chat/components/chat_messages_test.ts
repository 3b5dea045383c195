import assert from "node:assert/strict";
import { AssistantMessage } from "../../../../cli/chat/components/assistant_message.ts";
import { CompactionSummary } from "../../../../cli/chat/components/compaction_summary.ts";
import { Thinking } from "../../../../cli/chat/components/thinking.ts";
import { UserMessage } from "../../../../cli/chat/components/user_message.ts";
import { Welcome } from "../../../../cli/chat/components/welcome.ts";
import { COLOR, PLAIN, plain } from "../../../tui/components/helpers.ts";

Deno.test("welcome: version, model, cwd and hint", () => {
  const welcome = new Welcome({
    version: "0.1.0",
    cwd: "/home/me/src",
    model: "claude",
    hint: "enter to send",
  }, PLAIN);
  assert.deepEqual(welcome.render(40), [
    "panto 0.1.0",
    "model claude",
    "cwd   /home/me/src",
    "enter to send",
  ]);
  welcome.update({ model: "gpt" });
  assert.equal(welcome.firstLineChanged(), 0);
  assert.equal(welcome.render(40)[1], "model gpt");
});

Deno.test("user message: marker, wrapping and a full-width background band", () => {
  assert.deepEqual(new UserMessage("hello there friend", PLAIN).render(10), [
    "› hello   ",
    "  there   ",
    "  friend  ",
  ]);
  const [line = ""] = new UserMessage("hi", COLOR).render(10);
  assert.ok(line.startsWith("\x1b[48;5;236m"), JSON.stringify(line));
  assert.equal(plain(line), "› hi      ");
});

Deno.test("assistant message: streams markdown with the cut near the tail", () => {
  const message = new AssistantMessage({ theme: PLAIN });
  message.append("# Title\n\nFirst paragraph.\n\nSecond");
  message.render(40);
  message.append(" paragraph grows");
  assert.equal(
    message.firstLineChanged(),
    4,
    "the growing paragraph's line, the first that differs",
  );
  assert.deepEqual(message.render(40), [
    "# Title",
    "",
    "First paragraph.",
    "",
    "Second paragraph grows",
  ]);
  message.setText("replaced");
  assert.deepEqual(message.render(40), ["replaced"]);
});

Deno.test("thinking: dim italic text, hideable without losing it", () => {
  const thinking = new Thinking({ theme: COLOR });
  thinking.append("Check the **tests** first.");
  const [line = ""] = thinking.render(80);
  assert.ok(line.includes("\x1b[3m"), "italic");
  assert.ok(line.includes("\x1b[38;5;245m"), "thinking colour");
  assert.equal(plain(line), "Check the tests first.");
  thinking.setHidden(true);
  assert.equal(thinking.firstLineChanged(), 0);
  assert.deepEqual(thinking.render(80).map(plain), ["∴ Thinking…"]);
  thinking.append(" More.");
  assert.equal(thinking.firstLineChanged(), null, "hidden text changes do not redraw");
  thinking.setHidden(false);
  assert.equal(plain(thinking.render(80)[0] ?? ""), "Check the tests first. More.");
});

Deno.test("thinking: a block with no text takes no lines, hidden or shown, until text arrives", () => {
  const thinking = new Thinking({ theme: PLAIN, hidden: true });
  assert.deepEqual(thinking.render(80), []);
  thinking.setHidden(false);
  assert.deepEqual(thinking.render(80), []);
  thinking.setHidden(true);
  thinking.render(80);
  thinking.append("Now text.");
  assert.equal(thinking.firstLineChanged(), 0, "appearing redraws from its first line");
  assert.deepEqual(thinking.render(80).map(plain), ["∴ Thinking…"]);
});

Deno.test("compaction summary: header with token counts, expandable summary", () => {
  const summary = new CompactionSummary(
    { summary: "We fixed the parser and added tests.", tokensBefore: 150_000, tokensAfter: 12_000 },
    PLAIN,
  );
  assert.deepEqual(summary.render(80), [
    "⟳ Context compacted from 150k to 12k tokens (ctrl+o to expand)",
  ]);
  summary.setExpanded(true);
  assert.equal(summary.firstLineChanged(), 0);
  assert.deepEqual(summary.render(30), [
    "⟳ Context compacted from 150k…",
    "  We fixed the parser and",
    "  added tests.",
  ]);
});
