"""CatalogRows: per-term rows read once, answers that do not depend on the batch."""

from __future__ import annotations

import pyoxigraph as ox

from ontoretrieve.catalog.rows import CatalogRows

FLAG = "http://www.w3.org/2002/07/owl#deprecated"
BY = "http://purl.obolibrary.org/obo/IAO_0100001"
Row = dict[str, ox.NamedNode | ox.Literal]


class _Store:
    """Answers from fixed rows, in the order given (reversed when asked to), and keeps
    every query it was asked."""

    def __init__(self, rows: list[Row], *, reverse: bool = False) -> None:
        self.rows, self.reverse, self.asked = rows, reverse, []  # type: list[str]

    def select(self, query: str) -> list[Row]:
        self.asked.append(query)
        found = [r for r in self.rows if f"<{r['s'].value}>" in query]
        return found[::-1] if self.reverse else found


def _fact(s: str, p: str, o: ox.NamedNode | ox.Literal, g: str) -> Row:
    return {"s": ox.NamedNode(s), "p": ox.NamedNode(p), "o": o, "g": ox.NamedNode(g)}


ROWS = [_fact("urn:a", BY, ox.NamedNode("urn:z"), "urn:g1"),
        _fact("urn:a", BY, ox.NamedNode("urn:y"), "urn:g1"),
        _fact("urn:a", FLAG, ox.Literal(True), "urn:g1"),
        _fact("urn:b", FLAG, ox.Literal(True), "urn:g2")]


def test_only_the_terms_not_read_yet_are_asked() -> None:
    store, rows = _Store(ROWS), CatalogRows()
    first = rows.fact_rows(store, ["urn:a", "urn:b"], [FLAG, BY])  # type: ignore[arg-type]
    again = rows.fact_rows(store, ["urn:b", "urn:c"], [FLAG, BY])  # type: ignore[arg-type]
    assert len(store.asked) == 2
    assert "urn:a" not in store.asked[1] and "urn:c" in store.asked[1]
    assert again == {"urn:b": first["urn:b"], "urn:c": []}


def test_a_terms_rows_do_not_depend_on_the_store_order_or_the_other_terms() -> None:
    alone = CatalogRows().fact_rows(_Store(ROWS), ["urn:a"], [FLAG, BY])  # type: ignore[arg-type]
    together = CatalogRows().fact_rows(_Store(ROWS, reverse=True),  # type: ignore[arg-type]
                                       ["urn:b", "urn:a"], [FLAG, BY])
    assert alone["urn:a"] == together["urn:a"]
    assert [o.value for _, p, o in alone["urn:a"] if p == BY] == ["urn:y", "urn:z"]


def test_references_are_kept_per_term() -> None:
    rows = [{"s": ox.NamedNode("urn:a"), "src": ox.NamedNode("urn:g1"),
             "g": ox.NamedNode("urn:g2")},
            {"s": ox.NamedNode("urn:b"), "src": ox.NamedNode("urn:g1"),
             "g": ox.NamedNode("urn:g1")}]
    store = _Store(rows)  # type: ignore[arg-type]
    found = CatalogRows().reference_rows(store, ["urn:a", "urn:b", "urn:c"])  # type: ignore[arg-type]
    assert found == {"urn:a": [("urn:g1", "urn:g2")], "urn:b": [("urn:g1", "urn:g1")],
                     "urn:c": []}
    assert len(store.asked) == 1
