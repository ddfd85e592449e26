/** Types for the embedded engine's entry point (the package ships none). */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB folder; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }

  export default function dynalite(options?: DynaliteOptions): Server;
}
