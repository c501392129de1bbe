/**
 * The output items of translated Responses answers, remembered by id so a later request may
 * name them by `item_reference` (clients such as the Vercel AI SDK do with `store` on). Kept in
 * this process only: the newest items up to 16 MiB of JSON in all, each at most 64 KiB; ids are
 * 48 random hex digits, so an item is found only by whoever was given its id. Another instance
 * does not know them: a reference it cannot resolve is a 400 naming it.
 */
const MAX_TOTAL_CHARS = 16 * 1024 * 1024;
const MAX_ITEM_CHARS = 64 * 1024;

const items = new Map<string, string>();
let totalChars = 0;

function forget(id: string): void {
  const text = items.get(id);
  if (text === undefined) return;
  items.delete(id);
  totalChars -= text.length;
}

export function rememberItem(item: { id: string } & Record<string, unknown>): void {
  const text = JSON.stringify(item);
  if (text.length > MAX_ITEM_CHARS) return;
  forget(item.id);
  items.set(item.id, text);
  totalChars += text.length;
  while (totalChars > MAX_TOTAL_CHARS) forget(items.keys().next().value!);
}

export function recallItem(id: string): Record<string, unknown> | undefined {
  const text = items.get(id);
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
}
