// The export formats, apart from the renderers: the argument parser needs
// them at every start, the renderers only when something is exported.

/**
 * The formats a session exports to.
 *
 * @example
 * ```ts
 * import { EXPORT_FORMATS } from "./export_formats.ts";
 * console.assert(EXPORT_FORMATS.includes("html"));
 * ```
 */
export const EXPORT_FORMATS = ["html", "md", "jsonl"] as const;

/** A format a session exports to: a web page, Markdown, or panto's JSONL (which imports back). */
export type ExportFormat = typeof EXPORT_FORMATS[number];

const EXTENSIONS: Record<string, ExportFormat> = {
  ".html": "html",
  ".htm": "html",
  ".md": "md",
  ".markdown": "md",
  ".jsonl": "jsonl",
};

/**
 * The format to write `path` in: the one asked for, else the one its
 * extension names.
 *
 * @example
 * ```ts
 * import { exportFormatFor } from "./export_formats.ts";
 * console.assert(exportFormatFor("/tmp/a.HTML") === "html");
 * console.assert(exportFormatFor("/tmp/a.txt", "md") === "md");
 * ```
 *
 * @param path The file to write.
 * @param asked The format asked for (`--format`).
 * @returns The format.
 * @throws {Error} When none is asked for and the extension names none.
 */
export function exportFormatFor(path: string, asked?: ExportFormat): ExportFormat {
  if (asked) return asked;
  const extension = /\.[^./\\]*$/.exec(path)?.[0].toLowerCase() ?? "";
  const format = EXTENSIONS[extension];
  if (format) return format;
  throw new Error(
    `Cannot tell which format to write ${path} in: name it .html, .md or .jsonl, ` +
      `or give the format (--format html|md|jsonl)`,
  );
}
