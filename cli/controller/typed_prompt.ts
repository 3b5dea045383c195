import { type ContentBlock, type ImageBlock, type Message, messageText } from "@panto/lib";

/** A stored prompt as the user wrote it: the text typed and the images pasted. */
export interface TypedPrompt {
  /** The text, `@path` words included (sending it attaches the files again). */
  text: string;
  /** The images pasted with it (not those of its `@path` files). */
  images: ImageBlock[];
}

/**
 * What the user typed and pasted for a stored user message. The agent
 * stores a prompt as its text, its images, then its attachments (`@path`
 * files, `!shell` output, a branch summary), and an attachment never starts
 * with an image: so the text is the first block and the pasted images the
 * ones right after it. A message not of that shape (no leading text) gives
 * all its text and no images.
 *
 * @example
 * ```ts ignore
 * import { typedPrompt } from "./typed_prompt.ts";
 * const dot = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" } as const;
 * const prompt = typedPrompt({
 *   role: "user",
 *   timestamp: "",
 *   content: [
 *     { type: "text", text: "compare @a.txt" },
 *     dot,
 *     { type: "text", text: '<file path="a.txt">\nA\n</file>' },
 *   ],
 * });
 * console.assert(prompt.text === "compare @a.txt" && prompt.images.length === 1);
 * ```
 *
 * @param message A user message.
 * @returns Its text and pasted images.
 */
export function typedPrompt(message: Message): TypedPrompt {
  const [first, ...rest] = message.content;
  if (first?.type !== "text") return { text: messageText(message), images: [] };
  const end = rest.findIndex((block) => block.type !== "image");
  return { text: first.text, images: (end < 0 ? rest : rest.slice(0, end)).filter(isImage) };
}

function isImage(block: ContentBlock): block is ImageBlock {
  return block.type === "image";
}
