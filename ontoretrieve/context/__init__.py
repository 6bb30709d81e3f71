"""The context: seeds grow into the budgeted subgraph a prompt receives.

Stage 4. ``expand`` decides each seed's kind and the schema it brings;
``builder`` holds the growing subgraph; ``subgraph`` induces it within the
triple budget and ``final_pass`` completes it; ``modules`` closes small
modules; ``budget`` and ``tokens`` spend a prompt-token budget by confidence;
``overlay`` applies a tenant's query-time rules; ``model`` is the ``Context``
record returned to callers; ``retriever`` composes the stage, reading the
catalog through ``ontoretrieve.catalog.reader``.
"""
