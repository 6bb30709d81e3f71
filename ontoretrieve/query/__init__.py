"""The query path: a text becomes seed terms (the read path of the index).

Stage 3. ``windows`` splits the text; ``lanes`` searches every window in the
vector lanes and ``mention_lane`` finds the surface forms it names; ``fusion``
fuses them by weighted reciprocal rank; ``lexical`` adds the exact-match rules
(triggers, symbol case, unit signals); ``selection`` cuts the fused terms into
seeds; ``seeder`` composes them. ``lookup`` grounds one mention to ranked
candidates on the same lanes.
"""
