/** The version of the panto program. */
export const VERSION = "0.1.0";
