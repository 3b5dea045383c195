/** Where the file tools may work. */
export interface FileToolOptions {
  /** The working directory paths are resolved against and confined to. */
  root: string;
  /** Other directories the config allows (`tools.allowedPaths`). */
  allowedRoots?: readonly string[];
}
