"""XML entities in RDF/XML files, bounded before the parser sees them.

Pure. RDF/XML may declare entities in its DOCTYPE, and ontology editors use
them for namespaces (``<!ENTITY owl "http://www.w3.org/2002/07/owl#">``). The
RDF/XML parser expands them, so a few lines that nest entities ("billion
laughs") expand to gigabytes. This module measures every declared entity's
expansion and every use of one in the document, and refuses a file whose
entities would expand past ``MAX_ENTITY_BYTES`` each or ``MAX_EXPANDED_BYTES``
in all, that declares an external entity (the parser would not read it, a
reader could be pointed at any file), or whose entities refer to each other
in a cycle.

>>> entity_problem(b'<!DOCTYPE rdf [<!ENTITY owl "http://www.w3.org/2002/07/owl#">]>'
...                b'<rdf:RDF xmlns:owl="&owl;"/>') is None
True
>>> names = [b"a", b"b", b"c", b"d", b"e", b"f", b"g"]
>>> nested = b"".join(b'<!ENTITY %s "%s">' % (name, b"&%s;" % inner * 10)
...                   for inner, name in zip(names, names[1:]))
>>> laughs = b'<!DOCTYPE r [<!ENTITY a "lol">' + nested + b']><r>&g;</r>'
>>> entity_problem(laughs)
'the entity g would expand to about 3 MB (at most 1,048,576 bytes each)'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["MAX_ENTITY_BYTES", "MAX_EXPANDED_BYTES", "entity_problem"]

MAX_ENTITY_BYTES = 1 << 20
"""The largest expansion of one entity (namespace entities are under 100 bytes)."""
MAX_EXPANDED_BYTES = 64 << 20
"""The most all entity uses of one document may add."""

_DECLARATION = re.compile(rb"<!ENTITY\s+(%\s+)?([^\s%;]+)\s+(SYSTEM|PUBLIC|\"|')", re.S)
_VALUE = re.compile(rb"\"([^\"]*)\"|'([^']*)'", re.S)
_USE = re.compile(rb"[&%]([A-Za-z_:][\w.:-]*);")
_BUILTIN = {b"lt", b"gt", b"amp", b"apos", b"quot"}


def entity_problem(data: bytes) -> str | None:
    """Why ``data``'s entities are refused, or None when they are harmless."""
    if b"<!ENTITY" not in data:
        return None
    values: dict[bytes, bytes] = {}
    for match in _DECLARATION.finditer(data):
        name, kind = match.group(2), match.group(3)
        if kind in (b"SYSTEM", b"PUBLIC"):
            return (f"the entity {name.decode(errors='replace')} is external ({kind.decode()}); "
                    "external entities are not read")
        value = _VALUE.match(data, match.start(3))
        values[name] = (value.group(1) if value and value.group(1) is not None
                        else value.group(2) if value else b"") or b""
    sizes: dict[bytes, int] = {}
    for name in values:
        size = _expanded(name, values, sizes, ())
        if size is None:
            return f"the entity {name.decode(errors='replace')} refers to itself"
        if size > MAX_ENTITY_BYTES:
            return (f"the entity {name.decode(errors='replace')} would expand to about "
                    f"{_human(size)} (at most {MAX_ENTITY_BYTES:,} bytes each)")
    body = data[data.rfind(b"]>") + 2:] if b"]>" in data else data
    added = sum(sizes.get(m.group(1), 0) for m in _USE.finditer(body))
    if added > MAX_EXPANDED_BYTES:
        return (f"its entities would add about {_human(added)} to the document "
                f"(at most {MAX_EXPANDED_BYTES:,} bytes)")
    return None


def _expanded(name: bytes, values: Mapping[bytes, bytes], sizes: dict[bytes, int],
              path: tuple[bytes, ...]) -> int | None:
    """The length of ``name`` fully expanded (capped past the limit); None on a cycle."""
    if name in sizes:
        return sizes[name]
    if name in path:
        return None
    value = values.get(name)
    if value is None:
        return 0  # undeclared or built in: the parser decides
    total = len(_USE.sub(b"", value))
    for use in _USE.finditer(value):
        if use.group(1) in _BUILTIN:
            continue
        inner = _expanded(use.group(1), values, sizes, (*path, name))
        if inner is None:
            return None
        total += inner
        if total > MAX_EXPANDED_BYTES:  # enough to refuse; no need to count further
            break
    sizes[name] = total
    return total


def _human(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= scale:
            return f"{size / scale:.0f} {unit}"
    return f"{size} bytes"
