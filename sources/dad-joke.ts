/** 冷笑话: a pun or groaner (谐音梗) from the bundled corpus data/corpus/dad-joke.json (written for this project). */
import { loadCorpus, stringItem, textCorpusSource } from './_shared/corpus.ts';

export const CORPUS = loadCorpus('dad-joke', stringItem);

export default textCorpusSource({
  id: 'dad-joke',
  name: '冷笑话',
  description: 'A Chinese pun or groaner (冷笑话, 谐音梗): random, or a given id (0-based).',
  what: 'dad joke',
  heading: '🥶 冷笑话',
  corpus: CORPUS,
});
