"""Update proposals to the catalog: validated, applied and rolled back.

``model`` holds the records and pure checks; ``shacl`` validates against the
shapes in ``shapes/``; ``critic`` flags what SHACL cannot see; ``runner``
composes validate, apply and rollback against the catalog and the index.
"""
