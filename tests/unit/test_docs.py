"""The docs stay true to the code: every setting documented, every reference resolvable.

Read as text (nothing runs): docs/settings.md must name every setting, every
relative link in README.md and docs/ must point at a file of the repository,
and every path a docstring cites (``docs/...``, ``benchmarks/...``,
``tests/...``, a ``.md`` file) must exist in the repository.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pydantic import BaseModel

from ontoretrieve.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CITED_PATH = re.compile(r"(?<![\w/])((?:docs|benchmarks|tests|shapes)/[\w./-]*\w|[\w-]+\.md)\b")
URL = re.compile(r"\w+://\S+")
LITERAL = re.compile(r"``[^`]*``")
"""Inline literals name files a function writes (``summary.md``), not files to read."""


def setting_names() -> list[str]:
    names = []
    for group, field in Settings.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            names += [f"{group}.{name}" for name in annotation.model_fields]
    return names


def test_every_setting_is_in_the_settings_page() -> None:
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert [name for name in setting_names() if f"`{name}`" not in page] == []


def test_every_relative_link_of_the_docs_resolves() -> None:
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                 ROOT / "tests" / "README.md"]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def cited_paths(source: str) -> list[str]:
    """Paths and Markdown files the docstrings of a module cite."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = LITERAL.sub("", URL.sub("", ast.get_docstring(node) or ""))
            found += CITED_PATH.findall(text)
    return found


def test_every_path_a_docstring_cites_is_in_the_repository() -> None:
    missing = []
    for module in sorted((ROOT / "ontoretrieve").rglob("*.py")):
        for cited in cited_paths(module.read_text(encoding="utf-8")):
            if not (ROOT / cited).exists() and not (ROOT / "docs" / cited).exists():
                missing.append(f"{module.relative_to(ROOT)} cites {cited}")
    assert missing == []


def test_the_citation_check_finds_a_missing_spec() -> None:
    source = '"""The rules are in retrieval.md; it writes ``perf.md``."""\n'
    assert cited_paths(source) == ["retrieval.md"]
