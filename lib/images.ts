/**
 * `@panto/lib/images`: {@linkcode downsizeImage}, which shrinks an image to
 * what a model accepts (the agent does it for every image it sends). The
 * PNG and JPEG codecs load, in a worker, on the first image that needs
 * resizing.
 *
 * @example Downsize a screenshot before storing it
 * ```ts
 * import { downsizeImage } from "@panto/lib/images";
 *
 * // A 1×1 PNG is already small enough, so it comes back unchanged.
 * const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
 * const image = await downsizeImage({ mediaType: "image/png", data: pixel });
 * console.assert(!image.resized && image.width === 1);
 * ```
 *
 * @module
 */
export {
  DEFAULT_IMAGE_MAX_PIXELS,
  DEFAULT_IMAGE_MAX_SIDE,
  type DownsizedImage,
  downsizeImage,
  type DownsizeOptions,
  ImageError,
} from "./image.ts";
