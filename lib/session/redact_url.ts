/** Shown in place of a credential. */
const HIDDEN = "***";

/**
 * A URL fit to store or show: a password becomes `***` (a user name alone,
 * which may itself be a token, too), every query value becomes `***` (keys
 * travel as `?key=…`), and a fragment is dropped. A URL with none of these
 * is returned exactly as given.
 *
 * @param url A base URL or connection URL.
 * @returns The URL without credentials.
 *
 * @example
 * ```ts
 * import { redactUrl } from "@panto/lib";
 * console.assert(redactUrl("https://bob:s3cret@llm.example/v1") === "https://bob:***@llm.example/v1");
 * console.assert(redactUrl("https://llm.example/v1?key=s3cret") === "https://llm.example/v1?key=***");
 * console.assert(redactUrl("https://api.anthropic.com") === "https://api.anthropic.com");
 * ```
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: hide whatever sits where credentials would.
    return url.replace(/^([a-z][a-z\d+.-]*:\/\/)?[^/?#]*@/is, `$1${HIDDEN}@`).replace(
      /[?#].*$/s,
      `?${HIDDEN}`,
    );
  }
  if (!parsed.username && !parsed.password && !parsed.search && !parsed.hash) return url;
  if (parsed.password) parsed.password = HIDDEN;
  else if (parsed.username) parsed.username = HIDDEN;
  const keys = [...new Set(parsed.searchParams.keys())];
  parsed.search = keys.map((key) => `${encodeURIComponent(key)}=${HIDDEN}`).join("&");
  parsed.hash = "";
  // `href` gives a URL without a path one ("/"): keep the URL as it was written.
  return NO_PATH.test(url) ? parsed.href.replace(/\/(?=[?]|$)/, "") : parsed.href;
}

/** A URL with nothing after its host but a query or fragment. */
const NO_PATH = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*(?:[?#]|$)/i;
