"""The index: every catalog term as retrieval lanes and surface forms (the write path).

Stage 2. ``atomize`` turns each described term into an atom with three lane
texts; ``embed`` and ``embed_cache`` make its dense and sparse vectors (a
rebuild embeds only texts it has not seen); ``mention_text``,
``mention_forms``, ``mention_match`` and ``mention_store`` build the surface-form
dictionary of the mention lane; ``fingerprint`` and ``state`` record what
shaped an index; ``sync`` brings it up to date with the catalog incrementally;
``build`` composes them for one tenant.
"""
