/**
 * Sets a key in a Map that holds at most `max` keys: a new key beyond that drops the oldest one
 * set (the Map's insertion order). For small caches where recency of reads does not matter; a
 * cache bounded by bytes and read order is ByteLru.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set(key, value);
}
