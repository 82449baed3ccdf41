"""The docs name the net the engine ships: wherever README.md, a page of docs/ or a docstring of the
engine's and the lab's Python says "the shipped net" or "the built-in net", the net it names there is
the one eval/networks.py loads (BUILTIN_NET), and a doc page names that net beside the phrase.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from tool_runs import REPO_ROOT

from eval.networks import BUILTIN_NET

SHIPPED = re.compile(r"\b(?:shipped|built-in|builtin)\s+(?:net|nets|network|nnue|one)\b", re.IGNORECASE)
NET_NAME = re.compile(r"\bkestrel-(\d+)\b")
# A sentence ends at a full stop or semicolon before a space, or at a table cell's border.
SENTENCE_END = re.compile(r"(?<=[.;])\s+|\s\|\s")
# A net named this close to the phrase (characters between them) is the one it names: "`kestrel-7`, the
# shipped net" or "the shipped net (`kestrel-8`)", not a net the sentence names for another reason.
APPOSITION_GAP = 30
PYTHON_PACKAGES = ("eval", "search", "uci_engine", "tournaments", "tools")


def builtin_name() -> str:
    """The shipped net's name as the docs write it: `kestrel-8` for kestrel-8.nnue."""
    return BUILTIN_NET.removesuffix(".nnue")


def paragraphs(markdown: str) -> list[str]:
    """Blocks between blank lines; a table row or a list item is a block of its own."""
    blocks: list[str] = []
    current: list[str] = []
    for line in markdown.splitlines():
        starts_item = line.lstrip().startswith(("|", "- ", "* ")) or re.match(r"\s*\d+\. ", line) is not None
        if not line.strip() or starts_item:
            if current:
                blocks.append(" ".join(current))
            current = [line] if line.strip() else []
        else:
            current.append(line)
    if current:
        blocks.append(" ".join(current))
    return blocks


def sentences(block: str) -> list[str]:
    return [part for part in SENTENCE_END.split(block) if part]


def net_beside(sentence: str, phrase: re.Match[str]) -> str | None:
    """The kestrel-N named nearest to the phrase, within APPOSITION_GAP characters of it, or None."""
    names = []
    for match in NET_NAME.finditer(sentence):
        gap = phrase.start() - match.end() if match.end() <= phrase.start() else match.start() - phrase.end()
        if gap <= APPOSITION_GAP:
            names.append((gap, match.group(0)))
    return min(names)[1] if names else None


def misnamed(block: str, builtin: str, must_name: bool) -> list[str]:
    """What is wrong with each mention of the shipped net in `block`: another net named beside it in
    its sentence, or (with `must_name`) a block that never names the shipped net."""
    problems = []
    for sentence in sentences(block):
        for match in SHIPPED.finditer(sentence):
            named = net_beside(sentence, match)
            if named is not None and named != builtin:
                problems.append(f"{match.group(0)!r} next to {named}: {sentence.strip()[:160]}")
    named_in_block = {match.group(0) for match in NET_NAME.finditer(block)}
    if must_name and problems == [] and SHIPPED.search(block) and builtin not in named_in_block:
        problems.append(f"names no {builtin}: {block.strip()[:160]}")
    return problems


def doc_pages() -> list[Path]:
    return [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


def docstrings(path: Path) -> list[str]:
    """The module's, classes' and functions' docstrings of a Python file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = [tree, *(node for node in ast.walk(tree)
                     if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef))]
    return [text for node in nodes if (text := ast.get_docstring(node))]


def test_the_builtin_name_is_a_kestrel_net() -> None:
    assert NET_NAME.fullmatch(builtin_name()), BUILTIN_NET
    assert (REPO_ROOT / "eval" / "nets" / BUILTIN_NET).is_file()


@pytest.mark.parametrize("page", doc_pages(), ids=lambda page: page.name)
def test_a_doc_page_names_the_shipped_net(page: Path) -> None:
    builtin = builtin_name()
    problems = [problem for block in paragraphs(page.read_text(encoding="utf-8"))
                for problem in misnamed(block, builtin, must_name=True)]
    assert problems == [], "\n".join(problems)


def test_docstrings_name_no_other_net_as_the_shipped_one() -> None:
    builtin = builtin_name()
    files = [path for package in PYTHON_PACKAGES for path in sorted((REPO_ROOT / package).rglob("*.py"))]
    assert len(files) > 50
    problems = [f"{path.relative_to(REPO_ROOT)}: {problem}" for path in files
                for text in docstrings(path) for block in text.split("\n\n")
                for problem in misnamed(block, builtin, must_name=False)]
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(("text", "wrong"), [
    ("The shipped net, `kestrel-7`, beat `kestrel-6`.", True),
    ("At 128 units it beat kestrel-5; that net is `kestrel-6`, the shipped net.", True),
    ("| `Use NNUE` | the built-in one beat the weighted evaluation; they were calibrated with the built-in net |",
     True),
    ("`kestrel-8` beat `kestrel-7`; the shipped net (`kestrel-8`) plays by default.", False),
    ("The built-in net is `kestrel-8.nnue`, trained on `kestrel-7`'s games.", False),
    ("`kestrel-8` beat `kestrel-7` by +14.7 at 25,000 nodes, so each level plays above its figure until a round "
     "with the shipped net refits the curve.", False),
])
def test_the_check_tells_a_wrong_name_from_a_right_one(text: str, wrong: bool) -> None:
    assert (misnamed(text, "kestrel-8", must_name=True) != []) == wrong
