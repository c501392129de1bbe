/** A controllable clock for the engine (the service takes `now`). */
export class TestClock {
  constructor(public t = Date.parse('2026-11-21T02:00:00Z')) {}
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}
