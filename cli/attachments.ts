import { relative } from "node:path";
import type { ImageBlock } from "@panto/lib";
import { imageMediaType } from "./tools/image_types.ts";
import { resolveWorkspacePath } from "./tools/workspace_path.ts";

/** A prompt with its `@file` attachments resolved. */
export interface ExpandedPrompt {
  /** The text, with attached text files appended in `<file>` tags. */
  text: string;
  /** Attached images. */
  images: ImageBlock[];
  /** The files attached, relative to the working directory. */
  files: string[];
}

/**
 * Resolves `@path` words: an existing text file is appended to the prompt
 * in a `<file path="…">` block, an image is attached; a word naming no file
 * is left as it is (it may be a mention, not a path).
 *
 * @param text The prompt.
 * @param cwd The working directory paths are confined to.
 * @returns The expanded prompt.
 */
export async function expandAttachments(text: string, cwd: string): Promise<ExpandedPrompt> {
  const out: ExpandedPrompt = { text, images: [], files: [] };
  const blocks: string[] = [];
  for (const match of text.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const word = match[1]!.replace(/[,.;:!?)]+$/, "");
    const path = await existingFile(cwd, word);
    if (!path) continue;
    const shown = relative(cwd, path) || word;
    if (out.files.includes(shown)) continue; // mentioned twice, attached once
    out.files.push(shown);
    const mediaType = imageMediaType(path);
    if (mediaType) {
      out.images.push({ type: "image", mediaType, data: (await Deno.readFile(path)).toBase64() });
    } else {
      blocks.push(`<file path="${shown}">\n${await Deno.readTextFile(path)}\n</file>`);
    }
  }
  if (blocks.length) out.text = `${text}\n\n${blocks.join("\n\n")}`;
  return out;
}

async function existingFile(cwd: string, word: string): Promise<string | undefined> {
  if (!word) return undefined;
  try {
    const path = await resolveWorkspacePath(cwd, word);
    return (await Deno.stat(path)).isFile ? path : undefined;
  } catch {
    return undefined;
  }
}
