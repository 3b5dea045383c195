/**
 * `@panto/tui`: a scrollback-preserving differential terminal renderer,
 * input decoding and chat components.
 *
 * @module
 */
export {};
