/**
 * 冷笑话: a pun or groaner (谐音梗) from 60s's dataset (fetched daily), or the bundled corpus
 * data/corpus/dad-joke.json (written for this project) until the first fetch.
 */
import { loadCorpus, sixtyCorpusFeed, stringItem, textCorpusSource } from './_shared/corpus.ts';

export const CORPUS = loadCorpus('dad-joke', stringItem);

export default textCorpusSource({
  id: 'dad-joke',
  name: '冷笑话',
  description: 'A Chinese pun or groaner (冷笑话, 谐音梗): random, or a given id (0-based, as 60s). The corpus is the dataset of 60s (the file src/modules/dad-joke/dad-joke.json of its repository), refreshed daily; a bundled corpus answers until the first fetch.',
  what: 'dad joke',
  heading: '🥶 冷笑话',
  corpus: CORPUS,
  feed: sixtyCorpusFeed('dad-joke', stringItem, 20, 33),
});
