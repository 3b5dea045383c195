/**
 * `@panto/cli`: the `panto` program.
 *
 * @module
 */
export {};
