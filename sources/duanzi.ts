/**
 * 段子: a short joke from 60s's dataset (fetched daily), or the bundled corpus
 * data/corpus/duanzi.json (written for this project) until the first fetch.
 */
import { loadCorpus, sixtyCorpusFeed, stringItem, textCorpusSource } from './_shared/corpus.ts';

export const CORPUS = loadCorpus('duanzi', stringItem);

export default textCorpusSource({
  id: 'duanzi',
  name: '段子',
  description: 'A short Chinese joke (段子): random, or a given id (0-based, as 60s). The corpus is the dataset of 60s (the file src/modules/duanzi/duanzi.json of its repository), refreshed daily; a bundled corpus answers until the first fetch.',
  what: 'joke',
  heading: '😄 段子',
  corpus: CORPUS,
  alias: 'duanzi',
  feed: sixtyCorpusFeed('duanzi', stringItem, 20, 31),
});
