/** What `cleanupDbbench` did. */
export interface CleanupReport {
  /** Runs whose process was gone, and the objects of each that were removed. */
  removed: Array<{ runId: string; objects: string[] }>;
  /** Runs that still have a connection open: left alone. */
  active: string[];
}
