/**
 * The output items of translated Responses answers, remembered by id so a later request may
 * name them by `item_reference` (clients such as the Vercel AI SDK do with `store` on). Kept in
 * this process only, newest 20,000 items, each at most 64 KiB; ids are 48 random hex digits, so
 * an item is found only by whoever was given its id. Another instance does not know them: a
 * reference it cannot resolve is a 400 naming it.
 */
const MAX_ITEMS = 20_000;
const MAX_ITEM_CHARS = 64 * 1024;

const items = new Map<string, string>();

export function rememberItem(item: { id: string } & Record<string, unknown>): void {
  const text = JSON.stringify(item);
  if (text.length > MAX_ITEM_CHARS) return;
  items.delete(item.id);
  items.set(item.id, text);
  if (items.size > MAX_ITEMS) items.delete(items.keys().next().value!);
}

export function recallItem(id: string): Record<string, unknown> | undefined {
  const text = items.get(id);
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
}
