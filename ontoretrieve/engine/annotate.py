"""Annotate a corpus: every unit of a JSON Lines file retrieved in batches, one line out each.

A unit is a JSON object with a ``text`` and an id (``id`` or ``unit_id``;
else its line number), and optionally a ``doc_id``: units with the same
``doc_id`` are paragraphs of one document, in file order, and each is
retrieved with that whole document (``Engine.retrieve``'s ``document``: an
abbreviation one paragraph defines is read in all of them). Each output
line is ``{"id", "line", "ok": true}`` followed by the fields of the retrieve
result (``RetrieveResult``, the schema of ``retrieve --format json``, HTTP and
MCP), or ``{"id", "line", "ok": false, "error": {"type", "message"}}``: a bad input
line or a failing text costs its own line, never the run. Units go through
``Engine.retrieve_many`` a batch at a time, so the output equals a loop over
``retrieve``. The run is resumable: an existing output keeps its good lines
(a half-written last line and failed units are dropped and done again) and
only the units it lacks are retrieved; it is rewritten by a rename, then
appended to batch by batch.

>>> list(parse_units(['{"id": "a", "text": "x"}', '', 'not json']))[0]
UnitLine(line=1, id='a', text='x', error=None, doc_id=None)
>>> list(parse_units(['not json']))[0].error
'line 1: not a JSON object: Expecting value: line 1 column 1 (char 0)'
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any, Protocol

from ontoretrieve.context.model import Context, Mode
from ontoretrieve.engine.results import RetrieveResult
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.query.documents import document_id, joined_documents

__all__ = ["AnnotateReport", "ChunkWorkers", "RowLine", "UnitLine", "annotate_chunk",
           "annotate_file", "ok_row", "parse_units", "row_lines", "units_left"]

AnnotateProgress = Callable[[int, int], None]
"""Called before the first batch and after each: (units done, units in the file)."""

_ID_FIELDS = ("id", "unit_id")


@dataclass(frozen=True, slots=True)
class UnitLine:
    """One non-blank input line: its number (from 1), id, and text or what is wrong."""

    line: int
    id: str
    text: str | None
    error: str | None = None
    doc_id: str | None = None
    document: str | None = field(default=None, repr=False)
    """The whole document of ``doc_id`` (``annotate_file`` joins it)."""


@dataclass(frozen=True, slots=True)
class AnnotateReport:
    units: int
    kept: int
    """Units already in the output from an earlier run (not retrieved again)."""
    annotated: int
    failed: int
    seconds: float

    @property
    def units_per_second(self) -> float:
        return round(self.annotated / self.seconds, 3) if self.seconds else 0.0


class Retrieving(Protocol):
    """What ``annotate_file`` needs of an engine (``Engine`` has it)."""

    def retrieve(self, text: str, *, tenant: str, mode: Mode | str,
                 ontologies: Sequence[str], max_tokens: int | None,
                 document: str | None = None) -> Context: ...

    def retrieve_many(self, texts: Sequence[str], *, tenant: str, mode: Mode | str,
                      ontologies: Sequence[str], max_tokens: int | None,
                      documents: Sequence[str | None] | None = None) -> list[Context]: ...


RowLine = tuple[str, bool]
"""One output line (JSON and its newline) and whether its unit was retrieved well."""


class ChunkWorkers(Protocol):
    """Retrieves chunks elsewhere (``annotate_workers.WorkerPool``: in other processes),
    giving back each chunk's ``row_lines``, in order."""

    def annotate(self, chunks: Iterable[Sequence[UnitLine]], options: dict[str, Any],
                 turtle: bool) -> Iterator[list[RowLine]]: ...


def parse_units(lines: Iterable[str]) -> Iterator[UnitLine]:
    """The units of JSON Lines text, blank lines skipped; a bad line is a unit with an error."""
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except ValueError as exc:
            yield UnitLine(number, f"line-{number}", None, f"line {number}: not a JSON "
                           f"object: {exc}")
            continue
        if not isinstance(value, dict):
            yield UnitLine(number, f"line-{number}", None,
                           f"line {number}: not a JSON object but {type(value).__name__}")
            continue
        unit_id = next((str(value[k]) for k in _ID_FIELDS if value.get(k) is not None),
                       f"line-{number}")
        text = value.get("text")
        if not isinstance(text, str):
            yield UnitLine(number, unit_id, None, f"line {number}: no \"text\" string")
            continue
        try:
            doc_id = document_id(value.get("doc_id"))
        except TypeError as exc:
            yield UnitLine(number, unit_id, None,
                           f"line {number}: \"doc_id\" must be a string, not {exc}")
            continue
        yield UnitLine(number, unit_id, text, doc_id=doc_id)


def annotate_file(engine: Retrieving, units: Path, out: Path, *, tenant: str,
                  mode: Mode | str = Mode.AUTO, ontologies: Sequence[str] = (),
                  max_tokens: int | None = None, batch: int = 64, turtle: bool = True,
                  progress: AnnotateProgress | None = None,
                  workers: ChunkWorkers | None = None) -> AnnotateReport:
    """Retrieve every unit of ``units`` into ``out`` (JSON Lines), resuming a partial ``out``.

    With ``workers``, the chunks are retrieved by the pool's processes (each with an
    engine of its own over the same data directory) and written in input order:
    the same file, made on more cores.

    Raises:
        OntoRetrieveError: ``units`` cannot be read, ``batch`` is below 1, or a worker
            cannot open its engine or died.
    """
    if batch < 1:
        raise OntoRetrieveError(f"the batch size must be at least 1, not {batch}")
    total, documents = _count_units(units)
    done = _keep_good_lines(out)
    started, annotated, failed = time.perf_counter(), 0, 0
    options = {"tenant": tenant, "mode": mode, "ontologies": ontologies,
               "max_tokens": max_tokens}
    if progress:
        progress(len(done), total)  # before the first batch: what an earlier run did
    with _open_units(units) as lines, out.open("a", encoding="utf-8") as sink:
        todo = (_with_document(u, documents) for u in parse_units(lines)
                if u.line not in done)
        chunks = iter(lambda: list(islice(todo, batch)), [])
        for rows in (workers.annotate(chunks, options, turtle) if workers is not None
                     else (row_lines(annotate_chunk(engine, chunk, options, turtle))
                           for chunk in chunks)):
            sink.write("".join(line for line, _ in rows))
            sink.flush()
            annotated += len(rows)
            failed += sum(1 for _, ok in rows if not ok)
            if progress:
                progress(len(done) + annotated, total)
    return AnnotateReport(units=total, kept=len(done), annotated=annotated, failed=failed,
                          seconds=round(time.perf_counter() - started, 3))


def annotate_chunk(engine: Retrieving, chunk: Sequence[UnitLine], options: dict[str, Any],
                   turtle: bool) -> list[dict[str, Any]]:
    """The output rows of one chunk: one batch call, or one call per unit when it fails
    (so that each failure lands on its own unit)."""
    good = [(u, u.text) for u in chunk if u.text is not None]
    found: dict[int, Context | Exception] = {}
    try:
        found.update(zip((u.line for u, _ in good), engine.retrieve_many(
            [text for _, text in good], documents=[u.document for u, _ in good],
            **options), strict=True))
    except Exception:  # found again unit by unit, so each failure lands on its unit
        for unit, text in good:
            line = unit.line
            try:
                found[line] = engine.retrieve(text, document=unit.document, **options)
            except Exception as exc:  # recorded in the unit's line, the run goes on
                found[line] = exc
    rows = []
    for unit in chunk:
        result = found.get(unit.line)
        if isinstance(result, Context):
            rows.append(ok_row(unit, result, turtle))
            continue
        kind = "InvalidUnit" if result is None else type(result).__name__
        message = unit.error if result is None else str(result)
        rows.append({"id": unit.id, "line": unit.line, "ok": False,
                     "error": {"type": kind, "message": message}})
    return rows


def row_lines(rows: Sequence[dict[str, Any]]) -> list[RowLine]:
    """The output lines of a chunk's rows, made once (where the rows are made: in a
    worker process, so that the writer only writes them).

    >>> row_lines([{"id": "a", "line": 1, "ok": False, "error": {}}])
    [('{"id": "a", "line": 1, "ok": false, "error": {}}\\n', False)]
    """
    return [(json.dumps(row, ensure_ascii=False) + "\n", bool(row["ok"])) for row in rows]


def ok_row(unit: UnitLine, context: Context, turtle: bool) -> dict[str, Any]:
    """The output line of a unit retrieved well: its retrieve result (``RetrieveResult``,
    without ``turtle`` when not asked for) after its id, line and ok."""
    result = RetrieveResult.of(context, turtle=turtle).model_dump(mode="json")
    if not turtle:
        del result["turtle"]
    return {"id": unit.id, "line": unit.line, "ok": True, **result}


def units_left(units: Path, out: Path) -> int:
    """About how many units of ``units`` a run into ``out`` still retrieves: its non-blank
    lines less the good rows an earlier run left in ``out`` (told by how a row begins,
    not parsed: enough to choose how many workers to start).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "u.jsonl").write_text('{"id": "a", "text": "x"}\\n\\n{"id": "b"}\\n')
    >>> _ = (folder / "o.jsonl").write_text('{"id": "a", "line": 1, "ok": true}\\n')
    >>> units_left(folder / "u.jsonl", folder / "o.jsonl"), units_left(folder / "u.jsonl",
    ...                                                               folder / "none")
    (1, 2)

    Raises:
        OntoRetrieveError: ``units`` cannot be read.
    """
    with _open_units(units) as lines:
        total = sum(1 for line in lines if line.strip())
    try:
        with out.open("rb") as previous:
            done = sum(1 for row in previous if _GOOD_ROW.match(row[:4096]))
    except OSError:  # no output yet (or none readable: the run says so when it writes)
        done = 0
    return max(0, total - done)


_GOOD_ROW = re.compile(rb'\{"id": "(?:[^"\\]|\\.)*", "line": \d+, "ok": true')
"""How ``ok_row``'s line begins."""


def _count_units(path: Path) -> tuple[int, dict[str, str]]:
    """The units in the file, and the documents their document ids name (all of them, so a
    resumed run reads each unit with the same document as a whole run)."""
    count, paragraphs = 0, []
    with _open_units(path) as lines:
        for unit in parse_units(lines):
            count += 1
            if unit.doc_id is not None and unit.text is not None:
                paragraphs.append((unit.doc_id, unit.text))
    return count, joined_documents(paragraphs)


def _with_document(unit: UnitLine, documents: dict[str, str]) -> UnitLine:
    if unit.doc_id is None or unit.doc_id not in documents:
        return unit
    return replace(unit, document=documents[unit.doc_id])


def _open_units(path: Path) -> Any:
    try:
        return path.open(encoding="utf-8")
    except OSError as exc:
        raise OntoRetrieveError(f"cannot read the units file {path}: {exc}") from exc


def _keep_good_lines(out: Path) -> set[int]:
    """The input lines an earlier run wrote good rows for; the output rewritten with only
    those rows (by a rename, so it is never half-rewritten)."""
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        return set()
    kept: dict[int, str] = {}
    with out.open(encoding="utf-8", errors="replace") as previous:
        for raw in previous:
            try:
                row = json.loads(raw)
            except ValueError:
                continue  # the half-written last line of a killed run
            if isinstance(row, dict) and row.get("ok") is True and isinstance(row.get("line"),
                                                                              int):
                kept[row["line"]] = raw if raw.endswith("\n") else raw + "\n"
    staging = out.with_name(out.name + ".resume")
    staging.write_text("".join(kept[line] for line in sorted(kept)), encoding="utf-8")
    os.replace(staging, out)
    return set(kept)
