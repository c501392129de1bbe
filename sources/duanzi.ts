/** 段子: a short joke from the bundled corpus data/corpus/duanzi.json (written for this project). */
import { loadCorpus, stringItem, textCorpusSource } from './_shared/corpus.ts';

export const CORPUS = loadCorpus('duanzi', stringItem);

export default textCorpusSource({
  id: 'duanzi',
  name: '段子',
  description: 'A short Chinese joke (段子): random, or a given id (0-based).',
  what: 'joke',
  heading: '😄 段子',
  corpus: CORPUS,
  alias: 'duanzi',
});
