/**
 * Standard error is the ACP client's log (standard output carries the
 * protocol). Written with `console.error`, not `stdio.ts`, whose
 * terminal sanitizer would load the terminal UI package.
 *
 * @param text One message, without the trailing newline.
 */
export function logToClient(text: string): void {
  console.error(`panto: ${text}`);
}
