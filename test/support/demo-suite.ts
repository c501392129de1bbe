import { afterAll, beforeAll } from 'vitest';
import { startDemo, type Demo } from '../../scripts/demo.ts';

/**
 * The demo (`npm run demo`'s service on its fixtures, the scheduler off) for the enclosing
 * describe block: started before its tests, within `startTimeoutMs` as it fills days of lists,
 * and closed after them. `demo()` is the running demo (there is none before beforeAll).
 */
export function demoForSuite(startTimeoutMs = 90_000): () => Demo {
  let demo: Demo | undefined;
  beforeAll(async () => {
    demo = await startDemo({ port: 0, host: '127.0.0.1', env: { SCHEDULER_ENABLED: 'false' } });
  }, startTimeoutMs);
  afterAll(async () => {
    await demo?.close();
  });
  return () => {
    if (!demo) throw new Error('the demo starts in beforeAll');
    return demo;
  };
}
