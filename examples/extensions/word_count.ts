/**
 * Example panto extension: a `word_count` tool the model can call, and a
 * `/wc` command that counts the words of the last answer.
 *
 * Try it with `npx -y deno@2.9.6 task -q panto -e examples/extensions/word_count.ts`, or
 * copy it to `~/.panto/extensions/` (every session) or
 * `<project>/.panto/extensions/` (that project).
 *
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { PantoApi } from "@panto/cli";

/** Registers the `word_count` tool and the `/wc` command. */
export default function wordCount(panto: PantoApi): void {
  panto.registerTool({
    decl: {
      name: "word_count",
      description: "Count the words and lines of a text file inside the working directory.",
      inputSchema: {
        type: "object",
        properties: {
          path: { type: "string", description: "File path, relative to the working directory" },
        },
        required: ["path"],
        additionalProperties: false,
      },
    },
    // A thrown error becomes an error result the model sees.
    execute: async (args) => {
      const given = String(args.path);
      const text = await Deno.readTextFile(await insideWorkingDirectory(panto.cwd, given));
      const { words, lines } = countText(text);
      return [{ type: "text", text: `${given}: ${words} words, ${lines} lines` }];
    },
  });

  panto.registerCommand("wc", {
    description: "Count the words of the last assistant message",
    run: (_args, ctx) => {
      const last = ctx.getConversation().findLast((message) => message.role === "assistant");
      if (last === undefined) {
        ctx.notify("/wc: there is no assistant message yet", "warning");
        return;
      }
      const text = last.content.map((block) => (block.type === "text" ? block.text : "")).join(
        "\n",
      );
      ctx.notify(`The last answer has ${countText(text).words} words`);
    },
  });
}

function countText(text: string): { words: number; lines: number } {
  const words = text.split(/\s+/).filter((word) => word !== "").length;
  const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  return { words, lines };
}

/** The real path of `path`, refusing anything outside `cwd` (symlinks included). */
async function insideWorkingDirectory(cwd: string, path: string): Promise<string> {
  const root = await Deno.realPath(cwd);
  const real = await Deno.realPath(resolve(cwd, path));
  const rel = relative(root, real);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new Error(`${path} is outside the working directory ${cwd}: give a path inside it`);
  }
  return real;
}
