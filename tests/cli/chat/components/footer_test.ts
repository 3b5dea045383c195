import assert from "node:assert/strict";
import { Footer } from "../../../../cli/chat/components/footer.ts";
import { formatTokens } from "../../../../cli/chat/components/format_tokens.ts";
import { assertFits, COLOR, PLAIN, plain } from "../../../tui/components/helpers.ts";

Deno.test("footer: location, usage and model; update redraws only on change", () => {
  const footer = new Footer({ cwd: "~/src/panto", branch: "main", model: "claude-x" }, PLAIN);
  assert.deepEqual(footer.render(40), [
    "~/src/panto (main)",
    "                                claude-x",
  ]);
  footer.update({ tokensIn: 12_345, tokensOut: 2_100, cost: 0.4567, contextPercent: 42.4 });
  assert.equal(footer.firstLineChanged(), 0);
  const stats = "↑12k ↓2.1k $0.457 42% ctx";
  assert.equal(footer.render(40)[1], stats + " ".repeat(40 - stats.length - 8) + "claude-x");
  footer.update({ tokensIn: 12_345 });
  assert.equal(footer.firstLineChanged(), null);
});

Deno.test("footer: context use turns warning then error colour; narrow widths truncate", () => {
  const footer = new Footer({ contextPercent: 75, model: "m" }, COLOR);
  assert.ok(footer.render(40)[0]?.includes("\x1b[38;5;179m75% ctx"));
  footer.update({ contextPercent: 95 });
  assert.ok(footer.render(40)[0]?.includes("\x1b[38;5;167m95% ctx"));
  const long = new Footer({
    cwd: "/a/very/long/path/".repeat(5),
    model: "model-name",
    tokensIn: 1,
    cost: 1,
  }, COLOR);
  for (const width of [20, 40, 80, 200]) assertFits(long.render(width), width);
  assert.ok(plain(long.render(20)[0] ?? "").endsWith("…"));
});

Deno.test("format: tokens", () => {
  assert.deepEqual([999, 1_234, 56_789, 2_500_000].map(formatTokens), [
    "999",
    "1.2k",
    "57k",
    "2.5M",
  ]);
});

Deno.test("footer: the session name follows the location, without its terminal controls", () => {
  const footer = new Footer({ cwd: "~/src", branch: "main" }, PLAIN);
  footer.update({ session: "fix\x1b[2J the\nbuild" });
  assert.equal(footer.render(60)[0], "~/src (main) · fix the build");
  footer.update({ session: undefined });
  assert.equal(footer.render(60)[0], "~/src (main)");
});

Deno.test("footer: what the chat waits for follows the location, and goes when cleared", () => {
  const footer = new Footer({ cwd: "~/src", model: "m" }, PLAIN);
  footer.update({ waiting: "waiting for approval of write" });
  assert.equal(footer.render(60)[0], "~/src · waiting for approval of write");
  footer.update({ waiting: undefined });
  assert.equal(footer.render(60)[0], "~/src");
  const alone = new Footer({ waiting: "waiting for approval of bash" }, PLAIN);
  assert.equal(alone.render(60)[0], "· waiting for approval of bash");
});

Deno.test("footer: without a window size, the active branch's context shows in tokens", () => {
  const footer = new Footer({ tokensIn: 12_000, tokensOut: 300, contextTokens: 4_200 });
  assert.match(plain(footer.render(60)[0] ?? ""), /^↑12k ↓300 4\.2k ctx/);
  footer.update({ contextPercent: 3, contextTokens: undefined });
  assert.match(plain(footer.render(60)[0] ?? ""), /^↑12k ↓300 3% ctx/);
});
