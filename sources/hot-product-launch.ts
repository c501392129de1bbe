/**
 * Today's products on the product launch site (Product Hunt), from its home page: the first
 * section (`[data-test=homepage-section-0]`) holds one `[data-test=post-item-<id>]` element per
 * product, with its page link (the first `a`), its name (`a[data-test^=post-name]`) and its upvotes
 * (`[data-test=vote-button]`). Page structure as read by imsyy/DailyHotApi src/routes/producthunt.ts.
 */
import { defineHotList, type HtmlList } from './_shared/declared-list.ts';

export const list: HtmlList = {
  id: 'hot-product-launch',
  name: 'Product Hunt今日产品',
  description: "Today's products on the product launch site, in its home page's order: name, upvotes as heat and the product page link.",
  homepage: 'https://www.producthunt.com/',
  path: '/hot-product-launch',
  pace: 'feed',
  html: '[data-test=homepage-section-0] [data-test^=post-item]',
  item: (el) => ({
    id: el.attr('data-test')?.replace(/^post-item-/, ''),
    title: el.find('a[data-test^=post-name]').first().text(),
    link: el.find('a').first().attr('href'),
    hot: el.find('[data-test=vote-button]').first().text(),
  }),
  view: { columns: { title: '产品', hot: '票数' } },
};

export default defineHotList(list);
