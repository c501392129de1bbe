/** Entry point: configuration → service → listen; SIGTERM/SIGINT drain and exit. */
import { ConfigError } from './config.ts';
import { createServiceAsync } from './service.ts';

let service;
try {
  service = await createServiceAsync();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
const svc = service;
const port = await svc.listen();
svc.log.info({ port, host: svc.config.host, db: svc.config.dbPath, scheduler: svc.config.schedulerEnabled }, `listening on http://localhost:${port}`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    svc.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    svc.close().then(
      () => {
        clearTimeout(force);
        process.exit(0);
      },
      (err: unknown) => {
        svc.log.error({ err: (err as Error).message }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
