/** Injectable time source: tests move time (idempotency expiry, schedules) without sleeping. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | string = "2026-01-15T10:00:00.000Z") {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
  set(at: Date | string): void {
    this.#ms = new Date(at).getTime();
  }
}
