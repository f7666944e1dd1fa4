import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { DeliveryType, StreamType, Suppression } from "./postmark-shapes";
import type { StoredMessage } from "./store";

/**
 * The embedded simulator's state on disk (`<DATA_DIR>/postmark-simulator.jsonl`), so a restart of
 * `npm start` keeps what "Postmark" received: the reconciler of in-doubt sends asks the simulator's search
 * after the restart, and a simulator that forgot would make it believe a message was never received.
 *
 * An append-only journal of JSON lines, written synchronously before the request that caused the change is
 * answered: a message the caller was told about is on disk. Bodies are not kept (a restart shows them as
 * evicted), nor webhook targets (their credentials are set again at start-up). Server tokens are: the
 * data directory already holds the service's own secrets. On load the journal is replayed and, when it has
 * grown past twice what is kept, rewritten with the kept state only.
 */
export type JournalServer = { token: string; id: number; name: string; deliveryType: DeliveryType; streams: { id: string; type: StreamType }[] };
export type JournalMessage = Omit<StoredMessage, "server" | "stream" | "settled" | "opened" | "clicked"> & { token: string; streamId: string };
export type JournalEntry =
  | { t: "server"; server: JournalServer }
  | { t: "messages"; messages: JournalMessage[] }
  | { t: "suppress"; token: string; streamId: string; entry: Suppression }
  | { t: "unsuppress"; token: string; streamId: string; address: string }
  | { t: "reset" };

export class SimulatorJournal {
  readonly path: string;
  #lines = 0;

  constructor(path: string) {
    this.path = path;
  }

  /** Every entry on disk, oldest first; a torn last line (a kill mid-write) is skipped. */
  read(): JournalEntry[] {
    if (!existsSync(this.path)) return [];
    const entries: JournalEntry[] = [];
    for (const line of readFileSync(this.path, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      try {
        entries.push(JSON.parse(line) as JournalEntry);
      } catch {
        // Only the last line can be torn; anything after it was never acknowledged.
      }
    }
    this.#lines = entries.length;
    return entries;
  }

  append(entry: JournalEntry): void {
    appendFileSync(this.path, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    this.#lines += 1;
  }

  get lines(): number {
    return this.#lines;
  }

  /** Replaces the journal with `entries` (write a new file, then rename it over the old one). */
  rewrite(entries: readonly JournalEntry[]): void {
    const next = `${this.path}.next`;
    writeFileSync(next, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""), { mode: 0o600 });
    renameSync(next, this.path);
    this.#lines = entries.length;
  }
}

export function journalMessage(message: StoredMessage): JournalMessage {
  const { server, stream, settled: _settled, opened: _opened, clicked: _clicked, ...rest } = message;
  return { ...rest, token: server.token, streamId: stream.id };
}
