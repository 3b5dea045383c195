// A session as one self-contained HTML page: the whole tree (the branch
// holding the active leaf open, the others folded), tool calls, results,
// thinking and system prompts folded in <details>, code highlighted by
// highlight.js with its style inlined. No script: it reads offline in any
// browser, and its content security policy lets nothing load or run, so a
// model's text cannot make the page do anything.
import hljs from "highlight.js/lib/common";
import { Marked, type Tokens } from "marked";
import type {
  ContentBlock,
  Message,
  ResultPart,
  SessionInfo,
  StoredTree,
  TreeEntry,
} from "@panto/lib";
import { pathTo } from "@panto/lib";
import { HIGHLIGHT_DARK_CSS, HIGHLIGHT_LIGHT_CSS } from "./highlight_css.ts";
import { escapeMarkup } from "../shared/escape_markup.ts";

/**
 * Renders a session as a self-contained HTML page (see the module comment).
 *
 * @example
 * ```ts
 * import { exportHtml } from "./html_export.ts";
 * const info = { id: "s", created: "2026-01-01T00:00:00Z", modified: "2026-01-01T00:00:00Z",
 *   messageCount: 1, lastUserMessage: "hi" };
 * const message = { role: "user" as const, content: [{ type: "text" as const, text: "hi" }], timestamp: "" };
 * const html = exportHtml(info, { entries: [{ id: "a", parentId: null, message }], leafId: "a" });
 * console.assert(html.startsWith("<!doctype html>") && html.includes("hi"));
 * ```
 *
 * @param info The session's info.
 * @param tree Every entry of the session.
 * @returns The page.
 */
export function exportHtml(info: SessionInfo, tree: StoredTree): string {
  const page = new Page(tree);
  const title = info.name || info.firstUserMessage || info.lastUserMessage || `Session ${info.id}`;
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeMarkup(oneLine(title))}</title>`,
    `<style>${PAGE_CSS}\n${HIGHLIGHT_LIGHT_CSS}\n@media (prefers-color-scheme: dark) {${HIGHLIGHT_DARK_CSS}}</style>`,
    "</head><body>",
    `<header><h1>${escapeMarkup(oneLine(title))}</h1>${facts(info, tree, page.forks)}</header>`,
    `<main>${page.body()}</main>`,
    "</body></html>",
    "",
  ].join("\n");
}

/** The tree walked from its roots: linear runs flat, each fork a set of branches. */
class Page {
  #children = new Map<string | null, TreeEntry[]>();
  #active: Set<string>;
  /** Tool call ids to the language of the file they name, for highlighting their results. */
  #languages = new Map<string, string>();
  /** How many entries have more than one child (roots counting as one parent's). */
  readonly forks: number;

  constructor(tree: StoredTree) {
    for (const entry of tree.entries) {
      const siblings = this.#children.get(entry.parentId) ?? [];
      siblings.push(entry);
      this.#children.set(entry.parentId, siblings);
      for (const block of entry.message.content) {
        const language = block.type === "tool_use" ? fileLanguage(block.input) : undefined;
        if (language) this.#languages.set((block as { id: string }).id, language);
      }
    }
    this.#active = new Set(pathTo(tree.entries, tree.leafId).map((entry) => entry.id));
    this.forks = [...this.#children.values()].filter((kids) => kids.length > 1).length;
  }

  body(): string {
    return this.#after(null);
  }

  /** What continues `parentId`: its one child's run, or its branches. */
  #after(parentId: string | null): string {
    const kids = this.#children.get(parentId) ?? [];
    if (kids.length === 1) return this.#run(kids[0]!);
    return kids.length === 0
      ? ""
      : `<div class="branches">${
        kids.map((kid, index) => this.#branch(kid, index, kids.length)).join("")
      }</div>`;
  }

  /** Entries from `first` down while each has one child, then what forks below. */
  #run(first: TreeEntry): string {
    const out: string[] = [];
    let entry: TreeEntry | undefined = first;
    while (entry) {
      out.push(renderEntry(entry, this.#active.has(entry.id), this.#languages));
      const kids: TreeEntry[] = this.#children.get(entry.id) ?? [];
      if (kids.length !== 1) {
        out.push(this.#after(entry.id));
        break;
      }
      entry = kids[0];
    }
    return out.join("\n");
  }

  #branch(first: TreeEntry, index: number, count: number): string {
    const active = this.#active.has(first.id);
    const mark = active ? " · active" : "";
    return `<details class="branch${active ? " active" : ""}"${active ? " open" : ""}>` +
      `<summary>Branch ${index + 1} of ${count}${mark}: ${
        escapeMarkup(preview(first.message))
      }</summary>` +
      `${this.#run(first)}</details>`;
  }
}

function facts(info: SessionInfo, tree: StoredTree, forks: number): string {
  const rows: [string, string][] = [
    ["Session", info.id],
    ["Created", info.created],
    ["Modified", info.modified],
    [
      "Messages",
      `${tree.entries.length}${
        forks > 0 ? ` (branching at ${forks} point${forks === 1 ? "" : "s"})` : ""
      }`,
    ],
  ];
  if (info.cwd) rows.push(["Directory", info.cwd]);
  if (info.wire) rows.push(["Model", `${info.wire.model} (${info.wire.apiStyle})`]);
  return `<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${escapeMarkup(v)}</dd>`).join("")}</dl>`;
}

const ROLE_NAMES: Record<Message["role"], string> = {
  system: "System",
  user: "User",
  assistant: "Assistant",
  tool: "Tool",
};

/** The language highlight.js knows for the file a tool call names, by its extension. */
function fileLanguage(input: Record<string, unknown>): string | undefined {
  const path = [input.path, input.file_path].find((value) => typeof value === "string");
  const extension = typeof path === "string" ? /\.(\w+)$/.exec(path)?.[1] : undefined;
  return extension && hljs.getLanguage(extension) ? extension : undefined;
}

function renderEntry(
  { id, message, label }: TreeEntry,
  active: boolean,
  languages: ReadonlyMap<string, string>,
): string {
  const stop = message.stopReason === "aborted" || message.stopReason === "error"
    ? ` (${message.stopReason})`
    : "";
  const badge = label ? ` <span class="label">${escapeMarkup(label)}</span>` : "";
  const time = message.timestamp ? ` <time>${escapeMarkup(message.timestamp)}</time>` : "";
  const error = message.errorMessage
    ? `<p class="error">Error: ${escapeMarkup(message.errorMessage)}</p>`
    : "";
  return `<article class="message ${message.role}${active ? " on-path" : ""}" id="entry-${
    escapeMarkup(id)
  }"><h2>${ROLE_NAMES[message.role]}${stop}${badge}${time}</h2>${
    message.content.map((block) => renderBlock(block, message.role, languages)).join("")
  }${error}</article>`;
}

function renderBlock(
  block: ContentBlock,
  role: Message["role"],
  languages: ReadonlyMap<string, string>,
): string {
  switch (block.type) {
    case "text":
      return role === "assistant"
        ? `<div class="markdown">${markdown(block.text)}</div>`
        : `<div class="plain">${escapeMarkup(block.text)}</div>`;
    case "image":
      return image(block.mediaType, block.data);
    case "thinking":
      return folded(
        "thinking",
        "Thinking",
        `<div class="plain">${escapeMarkup(block.thinking)}</div>`,
      );
    case "redacted_thinking":
      return `<p class="note">(redacted thinking)</p>`;
    case "system":
      return folded(
        "system",
        `System prompt (${block.mode})`,
        `<div class="plain">${escapeMarkup(block.text)}</div>`,
      );
    case "compaction_summary":
      return `<div class="summary"><p class="note">Summary of the conversation before</p>${
        markdown(block.summary)
      }</div>`;
    case "tool_use":
      return folded(
        "tool-call",
        `Tool call <b>${escapeMarkup(block.name)}</b> <code>${
          escapeMarkup(argumentPreview(block.input))
        }</code>`,
        code(block.invalidInput ?? JSON.stringify(block.input, null, 2), "json"),
      );
    case "tool_result":
      return folded(
        `tool-result${block.isError ? " failed" : ""}`,
        `Result of <b>${escapeMarkup(block.toolName)}</b>${block.isError ? " (error)" : ""} ${
          escapeMarkup(resultPreview(block.content))
        }`,
        block.content.map((part) => resultPart(part, languages.get(block.toolUseId))).join(""),
      );
  }
}

function folded(kind: string, summary: string, body: string): string {
  return `<details class="${kind}"><summary>${summary}</summary>${body}</details>`;
}

function resultPart(part: ResultPart, language: string | undefined): string {
  return part.type === "text" ? code(part.text, language) : image(part.mediaType, part.data);
}

/** Longest one-line preview, in code points. */
const PREVIEW = 80;

/** The argument that says most about a call: a command, a path, else the JSON. */
function argumentPreview(input: Record<string, unknown>): string {
  const telling = ["command", "path", "file_path", "pattern", "url", "query"]
    .map((key) => input[key])
    .find((value) => typeof value === "string");
  return clip(typeof telling === "string" ? telling : JSON.stringify(input));
}

function resultPreview(parts: readonly ResultPart[]): string {
  const text = parts.map((part) => (part.type === "text" ? part.text : "[image]")).join(" ");
  const lines = text.split("\n").length;
  return `· ${lines} line${lines === 1 ? "" : "s"}: ${clip(text.split("\n", 1)[0]!)}`;
}

function preview(message: Message): string {
  const text = message.content.map((block) =>
    block.type === "text" ? block.text : block.type === "tool_use" ? `[${block.name}]` : ""
  ).join(" ");
  return clip(text || ROLE_NAMES[message.role]);
}

function clip(text: string): string {
  const flat = Array.from(oneLine(text));
  return flat.length > PREVIEW ? `${flat.slice(0, PREVIEW - 1).join("")}…` : flat.join("");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Media types shown inline; anything else (an SVG, say) is named, not shown. */
const SHOWN_IMAGES = /^image\/(png|jpeg|gif|webp)$/;

function image(mediaType: string, data: string): string {
  if (!SHOWN_IMAGES.test(mediaType) || !/^[A-Za-z0-9+/=\s]*$/.test(data)) {
    return `<p class="note">[image: ${escapeMarkup(mediaType)}]</p>`;
  }
  return `<img alt="attached image" src="data:${mediaType};base64,${data.replace(/\s/g, "")}">`;
}

/** Longest code highlighted: highlight.js takes about 2.5 ms a kilobyte. */
const HIGHLIGHT_LIMIT = 20_000;

/**
 * Code, highlighted when its language is known and it is not too long
 * (never guessed: guessing tries every language, which made a long
 * session's page take seconds).
 */
function code(text: string, language?: string): string {
  const known = language !== undefined && hljs.getLanguage(language) !== undefined;
  if (!known || text.length > HIGHLIGHT_LIMIT) {
    return `<pre><code class="hljs">${escapeMarkup(text)}</code></pre>`;
  }
  const { value } = hljs.highlight(text, { language: language!, ignoreIllegals: true });
  return `<pre><code class="hljs language-${escapeMarkup(language)}">${value}</code></pre>`;
}

/** Markdown to HTML: raw HTML shown as text, links only to the web, code highlighted. */
const marked = new Marked({
  gfm: true,
  renderer: {
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeMarkup(text),
    code: ({ text, lang }: Tokens.Code) => code(text, lang?.split(/\s/)[0] || undefined),
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link) {
      const label = this.parser.parseInline(token.tokens);
      return /^(https?:|mailto:)/i.test(token.href)
        ? `<a href="${escapeMarkup(token.href)}">${label}</a>`
        : label;
    },
    image: ({ href, text }: Tokens.Image) =>
      `<span class="note">[image ${escapeMarkup(text || href)}]</span>`,
  },
});

function markdown(text: string): string {
  return marked.parse(text, { async: false });
}

const PAGE_CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --muted: #59636e; --line: #d1d9e0;
  --user: #ddf4ff; --tool: #f6f8fa; --error: #cf222e; --accent: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1;
  --line: #3d444d; --user: #0c2d4a; --tool: #151b23; --error: #ff7b72; --accent: #4493f8; } }
body { margin: 0 auto; max-width: 60rem; padding: 1rem; font: 15px/1.5 system-ui, sans-serif;
  color: var(--fg); background: var(--bg); }
header h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0 1rem; color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.message { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: .75rem 0; }
.message.user { background: var(--user); }
.message.tool { background: var(--tool); }
.message h2 { font-size: .85rem; margin: 0 0 .25rem; color: var(--muted); }
.message h2 time { font-weight: normal; margin-left: .5rem; }
.label { color: var(--accent); border: 1px solid var(--accent); border-radius: 4px; padding: 0 .3rem; }
.plain { white-space: pre-wrap; overflow-wrap: anywhere; }
.note { color: var(--muted); font-style: italic; }
.error, .failed > summary { color: var(--error); }
details { margin: .25rem 0; }
details > summary { cursor: pointer; color: var(--muted); overflow-wrap: anywhere; }
details > summary b { color: var(--fg); }
.branches { border-left: 3px solid var(--line); padding-left: .75rem; }
.branch > summary { font-weight: bold; }
.branch.active { border-left: 3px solid var(--accent); padding-left: .5rem; }
pre { overflow-x: auto; margin: .25rem 0; }
pre code.hljs { font-size: 13px; border-radius: 4px; }
img { max-width: 100%; }
.summary { border-left: 3px solid var(--accent); padding-left: .75rem; }
`;
