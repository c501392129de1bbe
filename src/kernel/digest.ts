/** Hex digests of text or bytes (UTF-8 for text): content hashes, guids, and upstreams' request signatures. */
import { hash } from 'node:crypto';

export const sha1 = (data: string | Uint8Array): string => hash('sha1', data, 'hex');

export const md5 = (data: string | Uint8Array): string => hash('md5', data, 'hex');
