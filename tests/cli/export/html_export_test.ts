/**
 * The HTML export's page without a browser: a model's markup stays text,
 * only web links stay links, images other than raster data are named,
 * not shown, and the branches of a fork are titled and folded.
 */
import assert from "node:assert/strict";
import type { Message, StoredTree } from "@panto/lib";
import { exportHtml } from "../../../cli/export/html_export.ts";

const INFO = {
  id: "s",
  created: "2026-03-01T09:00:00.000Z",
  modified: "2026-03-01T09:00:00.000Z",
  messageCount: 3,
  lastUserMessage: "",
};

function say(role: Message["role"], text: string): Message {
  return { role, content: [{ type: "text", text }], timestamp: "" };
}

Deno.test("HTML export: a model's markup is shown as text; links only to the web; no script anywhere", () => {
  const answer = say(
    "assistant",
    '<script>alert(1)</script>\n\nSee <img src=x onerror="alert(2)"> [click](javascript:alert(3)) ' +
      "[docs](https://deno.com) ![pic](https://tracker.test/p.png)",
  );
  answer.content.push(
    { type: "image", mediaType: "image/svg+xml", data: "PHN2Zz48L3N2Zz4=" },
    { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
  );
  const tree: StoredTree = {
    entries: [
      { id: "a", parentId: null, message: say("user", "<b>bold?</b>"), label: '"><script>' },
      { id: "b", parentId: "a", message: answer },
    ],
    leafId: "b",
  };
  const html = exportHtml({ ...INFO, name: "</title><script>x</script>" }, tree);
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html, /<img src=x/);
  assert.doesNotMatch(html, /href="javascript:/);
  assert.doesNotMatch(html, /tracker\.test\/p\.png"/, "no remote image is loaded");
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /<a href="https:\/\/deno\.com">docs<\/a>/);
  assert.match(html, /&lt;b&gt;bold\?&lt;\/b&gt;/);
  assert.match(html, /\[image: image\/svg\+xml\]/);
  assert.match(html, /<img alt="attached image" src="data:image\/png;base64,iVBORw0KGgo=">/);
  assert.match(html, /<title>&lt;\/title&gt;&lt;script&gt;x&lt;\/script&gt;<\/title>/);
  assert.match(html, /default-src 'none'/);
});

Deno.test("HTML export: a fork's branches are titled by their first prompt; the active one is open", () => {
  const tree: StoredTree = {
    entries: [
      { id: "a", parentId: null, message: say("user", "start") },
      { id: "b", parentId: "a", message: say("assistant", "first way") },
      { id: "c", parentId: "a", message: say("assistant", "second way") },
    ],
    leafId: "b",
  };
  const html = exportHtml(INFO, tree);
  assert.match(
    html,
    /<details class="branch active" open><summary>Branch 1 of 2 · active: first way/,
  );
  assert.match(html, /<details class="branch"><summary>Branch 2 of 2: second way/);
  assert.match(html, /3 \(branching at 1 point\)/);
  assert.ok(html.indexOf("start") < html.indexOf("first way"));
});
