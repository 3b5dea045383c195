/**
 * Where a provider request goes and the headers every streaming JSON
 * request carries, shared by the providers that differ only in path and
 * auth header.
 *
 * @module
 */
import { ProviderError } from "../errors.ts";
import type { ProviderConfig } from "../config.ts";

/**
 * A base URL with a path appended to its path (not to its string, so a query
 * such as Azure's `?api-version=` stays intact).
 *
 * @param baseUrl The configured base URL.
 * @param path What to append, from `/` (already encoded).
 * @param example A valid base URL for this provider, for the error.
 * @returns The URL (add search parameters before taking its `href`).
 * @throws {ProviderError} `invalid_request` when `baseUrl` is not a URL.
 *
 * @example
 * ```ts
 * import { endpointUrl } from "./endpoint.ts";
 * const url = endpointUrl("https://x.example/v1/?api-version=1", "/responses", "https://api.openai.com/v1");
 * console.assert(url.href === "https://x.example/v1/responses?api-version=1");
 * ```
 */
export function endpointUrl(baseUrl: string, path: string, example: string): URL {
  const url = URL.parse(baseUrl);
  if (url === null) {
    throw new ProviderError(
      "invalid_request",
      `baseUrl "${baseUrl}" is not a valid URL; use e.g. "${example}"`,
    );
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  return url;
}

/**
 * The headers of a streaming JSON request: content type, `accept`, the
 * provider's auth headers (none without a key), and the configured headers,
 * which win.
 *
 * @param config The provider's config (its `headers`).
 * @param auth The auth headers.
 * @returns The headers.
 *
 * @example
 * ```ts
 * import { streamHeaders } from "./endpoint.ts";
 * const headers = streamHeaders({ api: "openai-chat", baseUrl: "", model: "m", reasoning: "off" }, { "x-api-key": "k" });
 * console.assert(headers.accept === "text/event-stream" && headers["x-api-key"] === "k");
 * ```
 */
export function streamHeaders(
  config: ProviderConfig,
  auth: Record<string, string>,
): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...auth,
    ...config.headers,
  };
}
