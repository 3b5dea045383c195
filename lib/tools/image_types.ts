import { extname } from "node:path";

/**
 * The largest image file read or attached: ample for screenshots and photos,
 * and a bound on what the image pipeline decodes (it downsizes to 2000 px).
 */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** Image file extensions (lower case, with the dot) and the media types they are sent as. */
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** The media types of the images panto sends. */
export const IMAGE_MEDIA_TYPES: readonly string[] = [...new Set(Object.values(IMAGE_TYPES))];

/**
 * The media type of an image file, by its extension (any case).
 *
 * @example
 * ```ts
 * import { imageMediaType } from "./image_types.ts";
 * console.assert(imageMediaType("shot.PNG") === "image/png");
 * console.assert(imageMediaType("notes.txt") === undefined);
 * ```
 *
 * @param path The file's path or name.
 * @returns The media type, or `undefined` when the file is not an image panto sends.
 */
export function imageMediaType(path: string): string | undefined {
  return IMAGE_TYPES[extname(path).toLowerCase()];
}
