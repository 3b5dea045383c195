/**
 * An ACP prompt (text, images, embedded resources, resource links) as the
 * user message panto sends.
 *
 * @module
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ImageBlock, UserMessage } from "@panto/lib";
import { UsageError } from "../shared/errors.ts";
import { IMAGE_MEDIA_TYPES } from "@panto/lib/tools";

/**
 * Builds the user message: text blocks in order; embedded text resources
 * inline in a `<resource>` element (the editor's buffer as it is, saved or
 * not); resource links as a line naming the URI (the model can read the
 * file with its tools); images and image blobs attached.
 *
 * @param blocks The prompt's content blocks.
 * @returns The message.
 * @throws {UsageError} For audio, a non-image blob or an image type
 *   panto cannot send, naming it.
 */
export function promptMessage(blocks: readonly ContentBlock[]): UserMessage {
  const texts: string[] = [];
  const images: ImageBlock[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        break;
      case "image":
        images.push(image(block.mimeType, block.data, block.uri ?? "an image"));
        break;
      case "resource_link":
        texts.push(`Resource: ${block.title ?? block.name} <${block.uri}>`);
        break;
      case "resource": {
        const { resource } = block;
        if ("text" in resource) {
          texts.push(`<resource uri="${resource.uri}">\n${resource.text}\n</resource>`);
        } else {
          images.push(image(resource.mimeType ?? "", resource.blob, resource.uri));
        }
        break;
      }
      case "audio":
        throw new UsageError("panto does not take audio prompts: send text or images");
    }
  }
  return images.length ? { text: texts.join("\n\n"), images } : { text: texts.join("\n\n") };
}

function image(mimeType: string | null | undefined, data: string, what: string): ImageBlock {
  const mediaType = mimeType ?? "";
  if (!IMAGE_MEDIA_TYPES.includes(mediaType)) {
    throw new UsageError(
      `Cannot attach ${what} of type ${JSON.stringify(mediaType)}: send ${
        IMAGE_MEDIA_TYPES.join(", ")
      } images, or text`,
    );
  }
  return { type: "image", mediaType, data };
}
