import { join, relative, resolve } from "node:path";
import type { ImageBlock, TextBlock } from "@panto/lib";
import { looksBinary, SNIFF_BYTES } from "@panto/lib/tools";
import { imageMediaType, MAX_IMAGE_BYTES } from "@panto/lib/tools";
import { readAtMost } from "@panto/lib/fs";
import { readAsUser } from "../shared/read_as_user.ts";
import { formatBytes } from "@panto/lib/tools";
import { resolveWorkspacePath } from "@panto/lib/fs";

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
 * path). A file in the working directory is read by panto; one outside it
 * (`@/etc/hosts`, `@~/notes.md`, `@../other/x`) is read with the user's
 * own rights (the user typed it), and one the user may not read is an
 * error saying so, never dropped. A larger or binary file is not read past
 * its first bytes. The text itself is not changed: the blocks go after it.
 *
 * @param text The prompt.
 * @param cwd The working directory.
 * @param home The user's home directory, for `@~/…`.
 * @returns The attachments.
 * @throws {Error} Naming the file and the limit, for a file too large or
 *   binary; naming the file, for one the user may not read.
 */
export async function expandAttachments(
  text: string,
  cwd: string,
  home?: string,
): Promise<ExpandedPrompt> {
  const out: ExpandedPrompt = { blocks: [], files: [] };
  const attached = new Set<string>();
  for (const match of text.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const word = match[1]!.replace(/[,.;:!?)]+$/, "");
    const file = await namedFile(cwd, word, home);
    if (!file || attached.has(file.path)) continue; // mentioned twice, attached once
    attached.add(file.path);
    out.files.push(file.shown);
    const mediaType = imageMediaType(file.path);
    if (mediaType) {
      const bytes = await withinLimit(file, MAX_IMAGE_BYTES, "images");
      out.blocks.push(
        { type: "text", text: `<file path="${file.shown}">[image]</file>` },
        { type: "image", mediaType, data: bytes.toBase64() },
      );
    } else {
      const content = await readTextAttachment(file);
      out.blocks.push({ type: "text", text: `<file path="${file.shown}">\n${content}\n</file>` });
    }
  }
  return out;
}

/** A file a prompt names: where it is, how it is shown, and how its first bytes are read. */
interface NamedFile {
  path: string;
  shown: string;
  /** At most `maxBytes + 1` bytes. */
  read(maxBytes: number): Promise<Uint8Array>;
  /** Its size, when panto can tell it. */
  size(): Promise<number | undefined>;
}

async function readTextAttachment(file: NamedFile): Promise<string> {
  const bytes = await file.read(MAX_ATTACHED_TEXT_BYTES);
  if (looksBinary(bytes.subarray(0, SNIFF_BYTES))) {
    throw new Error(
      `@${file.shown} looks like a binary file: only text files and images (png, jpeg, gif, webp) are attached`,
    );
  }
  return new TextDecoder().decode(
    await withinLimit(file, MAX_ATTACHED_TEXT_BYTES, "text files", bytes),
  );
}

/** The bytes when the whole file fit in the limit; otherwise an error naming file, size and limit. */
async function withinLimit(
  file: NamedFile,
  limit: number,
  kind: string,
  read?: Uint8Array,
): Promise<Uint8Array> {
  const bytes = read ?? await file.read(limit);
  if (bytes.length <= limit) return bytes;
  const size = await file.size();
  throw new Error(
    `@${file.shown} is ${
      size === undefined ? `over ${formatBytes(limit)}` : formatBytes(size)
    }: ${kind} over ${
      formatBytes(limit)
    } are not attached; mention the file without @ and let the model read the parts it needs`,
  );
}

/** The file `word` names, if it is one: in the working directory, or anywhere the user may read. */
async function namedFile(
  cwd: string,
  word: string,
  home: string | undefined,
): Promise<NamedFile | undefined> {
  if (!word) return undefined;
  const path = home && (word === "~" || word.startsWith("~/"))
    ? join(home, word.slice(1))
    : resolve(cwd, word);
  const inside = await workspacePath(cwd, path);
  if (inside) return await projectFile(cwd, inside);
  return await userFile(path, word);
}

async function workspacePath(cwd: string, word: string): Promise<string | undefined> {
  try {
    return await resolveWorkspacePath(cwd, word);
  } catch {
    return undefined;
  }
}

async function projectFile(cwd: string, path: string): Promise<NamedFile | undefined> {
  try {
    if (!(await Deno.stat(path)).isFile) return undefined;
  } catch {
    return undefined;
  }
  return {
    path,
    shown: relative(cwd, path),
    read: (maxBytes) => readAtMost(path, maxBytes),
    size: async () => (await Deno.stat(path)).size,
  };
}

/**
 * A file outside the working directory, checked and read as the user (one
 * read serves both: the check's bytes are kept for the first read).
 */
async function userFile(path: string, word: string): Promise<NamedFile | undefined> {
  const first = await readAsUser(
    path,
    imageMediaType(path) ? MAX_IMAGE_BYTES : MAX_ATTACHED_TEXT_BYTES,
  );
  if (first.kind === "missing" || first.kind === "not a file") return undefined;
  if (first.kind === "unreadable") {
    throw new Error(
      `@${word}: you may not read ${path} (permission denied), so it is not attached`,
    );
  }
  return {
    path,
    shown: word,
    read: (maxBytes) => Promise.resolve(first.bytes.subarray(0, maxBytes + 1)),
    size: () => Promise.resolve(undefined),
  };
}
