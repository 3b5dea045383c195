/**
 * The HTML export in a real headless browser (Chromium, driven by
 * puppeteer-core): a 300-message session whose tree forks twice opens from
 * a file with no network and no script, shows the active path, folds the
 * other branches and every tool call, and highlights code with the inlined
 * highlight.js style. Skipped, saying why, when no Chromium is installed
 * (`apt-get install chromium`; `.ci/run` installs it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Message, PersistentMessage } from "@panto/lib";
import { SQLiteStore } from "@panto/lib/sqlite";
import puppeteer from "puppeteer-core";
import { renderExport } from "../../../cli/export/session_export.ts";

const CANDIDATES = [
  Deno.env.get("PANTO_TEST_CHROME"),
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
];

function findBrowser(): string | undefined {
  return CANDIDATES.find((path) => {
    try {
      return path !== undefined && Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
}

const BROWSER = findBrowser();
if (!BROWSER) {
  console.log(
    "html_export_browser_test: skipped: no Chromium at " +
      `${
        CANDIDATES.filter(Boolean).join(", ")
      } (apt-get install chromium, or set PANTO_TEST_CHROME)`,
  );
}

const at = (n: number) => new Date(Date.UTC(2026, 2, 1, 9, 0, n)).toISOString();

function message(role: Message["role"], content: Message["content"], n: number): Message {
  return { role, content, timestamp: at(n) };
}

/** One question answered after a tool call: four messages. */
function exchange(i: number): Message[] {
  return [
    message("user", [{ type: "text", text: `Question ${i}` }], i),
    message("assistant", [
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: `call-${i}`, name: "read", input: { path: `src/file_${i}.ts` } },
    ], i),
    message("tool", [{
      type: "tool_result",
      toolUseId: `call-${i}`,
      toolName: "read",
      content: [{ type: "text", text: `file_${i}.ts:\nfolded tool output ${i}` }],
      isError: false,
    }], i),
    message("assistant", [{
      type: "text",
      text:
        `Answer ${i}:\n\n\`\`\`ts\nconst loaves = ${i};\nexport function count() { return loaves; }\n\`\`\``,
    }], i),
  ];
}

function chat(prefix: string, pairs: number): Message[] {
  return Array.from({ length: pairs }, (_, j) => [
    message("user", [{ type: "text", text: `${prefix} question ${j}` }], j),
    message("assistant", [{ type: "text", text: `${prefix} answer ${j}` }], j),
  ]).flat();
}

/** Entries chained under `parentId`, ids `<prefix>-<n>`. */
function chain(prefix: string, messages: Message[], parentId: string | null): PersistentMessage[] {
  return messages.map((m, n) => ({
    message: m,
    conversation: [],
    toolsAvailable: [],
    id: `${prefix}-${n}`,
    parentId: n === 0 ? parentId : `${prefix}-${n - 1}`,
  }));
}

Deno.test({
  name: "HTML export: a 300-message tree opens in Chromium, branches and tool calls folded",
  ignore: BROWSER === undefined,
  // Chromium is a child process with its own sockets, closed in `finally`.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "panto-html-" });
    const store = new SQLiteStore({ path: ":memory:" });
    const browser = await puppeteer.launch({
      executablePath: BROWSER!,
      args: ["--no-sandbox", "--headless=new"],
    });
    try {
      // main: 60 exchanges (240); at main-119 (answer 29) a branch of 50;
      // at branch-19 a nested one of 10, stored last: the active leaf.
      const session = store.create({ cwd: "/home/ada/bakery" });
      await store.rename(session.id, "Bakery <stock> & friends");
      const main = chain("main", Array.from({ length: 60 }, (_, i) => exchange(i)).flat(), null);
      const branch = chain("branch", chat("Branch", 25), "main-119");
      const nested = chain("nested", chat("Nested", 5), "branch-19");
      await store.appendMessages(session.id, [...main, ...branch, ...nested], { expectedCount: 0 });
      await store.setLabel(session.id, "main-119", "fork point");
      const path = join(dir, "session.html");
      await Deno.writeTextFile(path, await renderExport(store, session.id, "html"));

      const page = await browser.newPage();
      const requests: string[] = [];
      page.on("request", (request) => void requests.push(request.url()));
      await page.goto(pathToFileURL(path).href, { waitUntil: "load" });

      const facts = await page.evaluate(() => {
        const tools = [...document.querySelectorAll<HTMLDetailsElement>("details.tool-call")];
        const results = [...document.querySelectorAll<HTMLDetailsElement>("details.tool-result")];
        const keyword = document.querySelector("article.assistant .hljs-keyword");
        return {
          title: document.title,
          messages: document.querySelectorAll("article.message").length,
          scripts: document.querySelectorAll("script").length,
          text: document.body.innerText,
          all: document.body.textContent ?? "",
          toolCalls: tools.length,
          openToolCalls: tools.filter((d) => d.open).length,
          visibleToolBodies: tools.filter((d) => d.querySelector("pre")!.checkVisibility()).length,
          openResults: results.filter((d) => d.open).length,
          firstToolSummary: (tools[0]?.querySelector("summary") as HTMLElement)?.innerText,
          keywordColor: keyword ? getComputedStyle(keyword).color : null,
          bodyColor: getComputedStyle(document.body).color,
          label: document.querySelector("#entry-main-119 .label")?.textContent,
        };
      });
      assert.equal(facts.title, "Bakery <stock> & friends");
      assert.equal(facts.messages, 300, "every entry of every branch is on the page");
      assert.equal(facts.scripts, 0);
      assert.deepEqual(requests, [pathToFileURL(path).href], "nothing but the file is loaded");

      // The active path reads top to bottom: root, the fork, the nested branch's last answer.
      for (const shown of ["Question 0", "Answer 29", "Branch answer 9", "Nested answer 4"]) {
        assert.ok(facts.text.includes(shown), `shown: ${shown}`);
      }
      assert.equal(facts.label, "fork point");
      // Branches off the active path are on the page, folded.
      for (const folded of ["Question 31", "Question 59", "Branch answer 24"]) {
        assert.ok(facts.all.includes(folded), `on the page: ${folded}`);
        assert.ok(!facts.text.includes(folded), `folded: ${folded}`);
      }
      // Tool calls and results: folded, their summaries saying what ran.
      assert.equal(facts.toolCalls, 60);
      assert.equal(facts.openToolCalls, 0);
      assert.equal(facts.visibleToolBodies, 0);
      assert.equal(facts.openResults, 0);
      assert.match(facts.firstToolSummary ?? "", /Tool call read src\/file_0\.ts/);
      assert.ok(!facts.text.includes("folded tool output 0"), "a result's output is folded");
      // Code is highlighted, and the inlined style colours it.
      assert.ok(facts.keywordColor !== null, "a code block has highlight.js spans");
      assert.notEqual(facts.keywordColor, facts.bodyColor);

      // A click on a folded branch's summary opens it: no script needed.
      await page.click("details.branch:not([open]) > summary");
      const opened = await page.evaluate(() => document.body.innerText);
      assert.ok(opened.includes("Question 59"), "the other branch reads once opened");
      await page.click("details.tool-call > summary");
      const withCall = await page.evaluate(() => document.body.innerText);
      assert.ok(withCall.includes('"path": "src/file_0.ts"'), "a tool call's arguments open");
    } finally {
      await browser.close();
      await store.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
