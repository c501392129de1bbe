import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, settings } from '../../src/config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(4399);
    expect(c.host).toBe('0.0.0.0');
    expect(c.dbPath).toBe('data/app.sqlite');
    expect(c.schedulerEnabled).toBe(true);
    expect(c.trustProxy).toBe(false);
    expect(c.logLevel).toBe('info');
    expect(c.upstreamMirror).toBeUndefined();
  });

  it('parses values and strips a trailing slash from URLs', () => {
    const c = loadConfig({ PORT: '8080', SCHEDULER_ENABLED: 'false', TRUST_PROXY: '1', SOURCES_UPSTREAM_MIRROR: 'http://127.0.0.1:9000/' });
    expect(c.port).toBe(8080);
    expect(c.schedulerEnabled).toBe(false);
    expect(c.trustProxy).toBe(true);
    expect(c.upstreamMirror).toBe('http://127.0.0.1:9000');
  });

  it('lists every bad value in one error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', SCHEDULER_ENABLED: 'maybe', LOG_LEVEL: 'loud', SOURCES_UPSTREAM_MIRROR: 'ftp://x', HTTP_TIMEOUT_MS: '5' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(5);
    expect((error as Error).message).toMatch(/PORT must be a whole number, got "eighty"/);
    expect((error as Error).message).toMatch(/SCHEDULER_ENABLED must be true or false/);
    expect((error as Error).message).toMatch(/LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent/);
    expect((error as Error).message).toMatch(/SOURCES_UPSTREAM_MIRROR must be an http\(s\) URL/);
    expect((error as Error).message).toMatch(/HTTP_TIMEOUT_MS must be between 100 and 300000, got 5/);
  });

  it('validates settings declared by sources too', () => {
    const c = loadConfig({ SOURCE_X_TOKEN: 'abc' }, [{ name: 'SOURCE_X_TOKEN', kind: { type: 'string' }, doc: 'x' }]);
    expect(c.values.SOURCE_X_TOKEN).toBe('abc');
    expect(() => loadConfig({ SOURCE_X_N: 'no' }, [{ name: 'SOURCE_X_N', kind: { type: 'int' }, doc: 'n' }])).toThrow(/SOURCE_X_N must be a whole number/);
  });

  it('documents every setting', () => {
    for (const s of settings) expect(s.doc.length, s.name).toBeGreaterThan(10);
  });
});
