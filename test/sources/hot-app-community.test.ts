import { describe, expect, it } from 'vitest';
import { appToken, list, randomDeviceId } from '../../sources/hot-app-community.ts';
import { describeDeclaredList } from '../support/declared-list-suite.ts';

describeDeclaredList(list, (requests) => {
  it("sends the app's headers and a token of the moment of the request", () => {
    const asked = requests().find((r) => r.host === 'api.coolapk.com');
    expect(asked?.headers['x-app-id']).toBe('com.coolapk.market');
    expect(asked?.query.get('title')).toBe('今日热门');
    const token = String(asked?.headers['x-app-token']);
    expect(token).toMatch(/^[0-9a-f]{32}[0-9a-z]{8}(-[0-9a-z]{4}){3}-[0-9a-z]{12}0x[0-9a-f]+$/);
    const seconds = Number.parseInt(token.slice(token.lastIndexOf('0x') + 2), 16);
    expect(Math.abs(seconds - Date.now() / 1000)).toBeLessThan(600);
  });
});

describe('hot-app-community app token', () => {
  it('matches a token computed apart (Python hashlib and base64) for a fixed moment and device', () => {
    const device = 'abcdefghi-jklmn-opqrs-tuvwx-0123456789abc';
    expect(appToken(new Date(1795226400_000), device)).toBe(`b7502649f0185df49aa525fa3a8d312f${device}0x6b00fb20`);
  });

  it('makes device ids in the app layout', () => {
    expect(randomDeviceId()).toMatch(/^[0-9a-z]{8}(-[0-9a-z]{4}){3}-[0-9a-z]{12}$/);
  });
});
