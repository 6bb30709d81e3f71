"""Session 51: the one-word keys head_keys makes per ontology file, with 30 examples.

    python head_keys_count.py ../shared/bench/catalog/obo/*.ttl
"""
import random
import sys

import pyoxigraph as ox

from ontoretrieve.index.mention_forms import term_forms
from ontoretrieve.index.mention_keys import head_keys, term_keys
from ontoretrieve.settings.groups import IndexSettings

for path in sys.argv[1:]:
    triples = [q.triple for q in ox.parse(path=path, format=ox.RdfFormat.TURTLE)]
    keys = head_keys(term_keys(term_forms(triples, IndexSettings())))
    random.Random(1).shuffle(keys)
    print(path.rsplit("/", 1)[-1], len(keys), [(k[1].strip(), k[3]) for k in keys[:30]])
