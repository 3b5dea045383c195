/**
 * `@panto/tui`: a scrollback-preserving differential terminal renderer,
 * input decoding and chat components.
 *
 * @module
 */
export type { Component } from "./component.ts";
export { CURSOR_MARKER } from "./component.ts";
export type { Key } from "./keys.ts";
export { formatKey, matchesKey, parseKey } from "./keys.ts";
export { SGR_RESET, sliceColumns, truncateToWidth, visibleWidth } from "./text_width.ts";
