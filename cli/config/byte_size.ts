/**
 * A size for messages: whole or fractional MiB from 1 MiB up, else bytes.
 *
 * @param bytes The size.
 * @returns E.g. `10 MiB`, `1.5 MiB`, `900 bytes`.
 *
 * @example
 * ```ts
 * import { formatByteSize } from "./byte_size.ts";
 * console.assert(formatByteSize(1024 * 1024) === "1 MiB");
 * console.assert(formatByteSize(900) === "900 bytes");
 * ```
 */
export function formatByteSize(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${Math.round(mib * 100) / 100} MiB` : `${bytes} bytes`;
}
