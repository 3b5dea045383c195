import { relative } from "node:path";
import type { ImageBlock, TextBlock } from "@panto/lib";
import { looksBinary, SNIFF_BYTES } from "./tools/binary_sniff.ts";
import { imageMediaType, MAX_IMAGE_BYTES } from "./tools/image_types.ts";
import { readAtMost } from "./read_at_most.ts";
import { formatBytes } from "./tools/truncate.ts";
import { resolveWorkspacePath } from "./tools/workspace_path.ts";

/** The largest text file attached whole: a larger one is better paged through by the read tool. */
export const MAX_ATTACHED_TEXT_BYTES = 256 * 1024;

/** A prompt's `@file` attachments, resolved. */
export interface ExpandedPrompt {
  /**
   * One block per file, in the order first mentioned: a text file in
   * `<file path="…">` tags; an image as a `<file path="…">[image]</file>`
   * text block naming it, then the image (so it is never the first block).
   */
  blocks: (TextBlock | ImageBlock)[];
  /** The files attached, relative to the working directory. */
  files: string[];
}

/**
 * Resolves `@path` words: an existing text file (up to 256 KiB) is attached
 * in a `<file path="…">` block, an image (up to 10 MiB) after a block naming
 * it; a word naming no file is left as it is (it may be a mention, not a
 * path). A larger or binary file is not read past its first bytes. The
 * text itself is not changed: the blocks go after it.
 *
 * @param text The prompt.
 * @param cwd The working directory paths are confined to.
 * @returns The attachments.
 * @throws {Error} Naming the file and the limit, for a file too large or binary.
 */
export async function expandAttachments(text: string, cwd: string): Promise<ExpandedPrompt> {
  const out: ExpandedPrompt = { blocks: [], files: [] };
  for (const match of text.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const word = match[1]!.replace(/[,.;:!?)]+$/, "");
    const path = await existingFile(cwd, word);
    if (!path) continue;
    const shown = relative(cwd, path) || word;
    if (out.files.includes(shown)) continue; // mentioned twice, attached once
    out.files.push(shown);
    const mediaType = imageMediaType(path);
    if (mediaType) {
      const read = await readAtMost(path, MAX_IMAGE_BYTES);
      const bytes = await withinLimit(read, MAX_IMAGE_BYTES, { path, shown, kind: "images" });
      out.blocks.push(
        { type: "text", text: `<file path="${shown}">[image]</file>` },
        { type: "image", mediaType, data: bytes.toBase64() },
      );
    } else {
      const content = await readTextAttachment(path, shown);
      out.blocks.push({ type: "text", text: `<file path="${shown}">\n${content}\n</file>` });
    }
  }
  return out;
}

async function readTextAttachment(path: string, shown: string): Promise<string> {
  const bytes = await readAtMost(path, MAX_ATTACHED_TEXT_BYTES);
  if (looksBinary(bytes.subarray(0, SNIFF_BYTES))) {
    throw new Error(
      `@${shown} looks like a binary file: only text files and images (png, jpeg, gif, webp) are attached`,
    );
  }
  return new TextDecoder().decode(
    await withinLimit(bytes, MAX_ATTACHED_TEXT_BYTES, { path, shown, kind: "text files" }),
  );
}

/** The bytes when the whole file fit in the limit; otherwise an error naming file, size and limit. */
async function withinLimit(
  bytes: Uint8Array,
  limit: number,
  { path, shown, kind }: { path: string; shown: string; kind: string },
): Promise<Uint8Array> {
  if (bytes.length <= limit) return bytes;
  const { size } = await Deno.stat(path);
  throw new Error(
    `@${shown} is ${formatBytes(size)}: ${kind} over ${
      formatBytes(limit)
    } are not attached; mention the file without @ and let the model read the parts it needs`,
  );
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
