"""Input that would take the memory of the machine is refused before it is read whole."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from ontoretrieve.catalog.files import parse_file
from ontoretrieve.cli.common import read_text
from ontoretrieve.errors import CatalogParseError, TextTooLongError

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def _laughs() -> bytes:
    """The 1 KB "billion laughs": nine levels of ten, about 3 GB expanded."""
    levels = "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10))
    return (f'<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY lol0 "lol">{levels}]>'
            f'<rdf:RDF xmlns:rdf="{RDF}" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">'
            '<rdf:Description rdf:about="http://x/a"><rdfs:label>&lol9;</rdfs:label>'
            '</rdf:Description></rdf:RDF>').encode()


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_entity_expansion_is_refused_before_parsing(tmp_path: Path) -> None:
    bomb = tmp_path / "laughs.owl"
    bomb.write_bytes(_laughs())
    assert bomb.stat().st_size < 1500
    before = _peak_mib()
    with pytest.raises(CatalogParseError, match="refused: the entity lol6 would expand"):
        parse_file(bomb)
    assert _peak_mib() - before < 100  # nothing was expanded


def test_external_entities_are_refused(tmp_path: Path) -> None:
    sneaky = tmp_path / "sneaky.rdf"
    sneaky.write_bytes(f'<!DOCTYPE rdf:RDF [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                       f'<rdf:RDF xmlns:rdf="{RDF}"/>'.encode())
    with pytest.raises(CatalogParseError, match="entity x is external"):
        parse_file(sneaky)


def test_namespace_entities_still_parse(tmp_path: Path) -> None:
    owl = tmp_path / "entities.owl"
    owl.write_bytes(
        b'<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY owl '
        b'"http://www.w3.org/2002/07/owl#"> <!ENTITY x "http://x/">]>'
        b'<rdf:RDF xmlns:rdf="' + RDF.encode() + b'" xmlns:owl="&owl;">'
        b'<owl:Class rdf:about="&x;A"/></rdf:RDF>')
    parsed = parse_file(owl)
    assert [t.subject.value for t in parsed.triples] == ["http://x/A"]


def test_a_file_over_the_size_limit_is_refused_by_setting(tmp_path: Path) -> None:
    big = tmp_path / "big.nt"
    big.write_bytes(b"<http://x/a> <http://x/p> <http://x/b> .\n" * 30_000)  # 1.2 MB
    with pytest.raises(CatalogParseError, match=r"over 1 MiB \(catalog.max_file_mb"):
        parse_file(big, max_bytes=1 << 20)
    assert len(parse_file(big, max_bytes=2 << 20).triples) == 1


def test_a_text_file_is_read_no_further_than_the_text_limit() -> None:
    before = _peak_mib()
    with pytest.raises(TextTooLongError, match="/dev/zero is longer than the limit"):
        read_text(Path("/dev/zero"), 200_000)
    assert _peak_mib() - before < 50  # about 800 KB read, not gigabytes
