/** The hex MD5 of a UTF-8 string, as upstreams' request signatures use it. */
import { createHash } from 'node:crypto';

export const md5 = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex');
