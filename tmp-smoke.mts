import { startService } from './test/support/service.ts';
const svc = await startService();
const paths = ['/v2/apis/hash?content=hello&encoding=text','/v2/apis/health?height=175&weight=70&age=30&gender=male&encoding=text','/v2/apis/password?encoding=text','/v2/apis/password/check?password=Tr0ub4dor%263&encoding=text','/v2/apis/color/random?color=FF5733&encoding=text','/v2/apis/color/palette?color=36c&encoding=text','/v2/apis/moyu?date=2026-10-01&encoding=text','/v2/apis/lunar?date=2026-02-17&encoding=text','/v2/apis/one-liner?encoding=text','/v2/apis/luck','/v2/apis/duanzi?id=3&encoding=markdown','/v2/apis/dad-joke?id=999','/v2/apis/fabing?name=%E5%B0%8F%E6%98%8E&encoding=text','/v2/apis/answer?encoding=text','/v2/apis/fast-food-copy','/v2/apis/awesome-js?id=6&encoding=text','/v2/apis/changya'];
for (const p of paths) { const r = await svc.get(p); console.log('==', p, r.status, r.headers.get('content-type')); console.log((await r.text()).slice(0, 700)); }
await svc.close();
