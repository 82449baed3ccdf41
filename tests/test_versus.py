"""tools/versus.py: the match command's builds and the runner's command line (no games: those are
the ledger's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import versus


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The revisions checkout() was asked to build; git resolves every name to a sha of its own, and
    `head` and `main` to the same one."""
    calls: list[str] = []
    monkeypatch.setattr(versus, "checkout", lambda revision: calls.append(revision) or Path("/builds") / revision)
    monkeypatch.setattr(versus, "git", lambda *args: {"head": "1" * 40, "main": "1" * 40}.get(
        args[-1].split("^")[0], args[-1].split("^")[0].ljust(40, "0")))
    return calls


def test_a_revision_against_itself_is_built_once(built: list[str]) -> None:
    assert versus.checkouts("abc", "abc") == (Path("/builds/abc"), Path("/builds/abc"))
    assert versus.checkouts("head", "main") == (Path("/builds/head"), Path("/builds/head"))   # one commit
    assert versus.checkouts(versus.WORKTREE, versus.WORKTREE)[1] == Path("/builds") / versus.WORKTREE
    assert built == ["abc", "head", versus.WORKTREE]


def test_two_revisions_are_built_each(built: list[str]) -> None:
    assert versus.checkouts("abc", "def") == (Path("/builds/abc"), Path("/builds/def"))
    assert versus.checkouts(versus.WORKTREE, "abc")[1] == Path("/builds/abc")   # the tree is not a commit
    assert built == ["abc", "def", versus.WORKTREE, "abc"]


def test_the_runner_gets_each_side_s_options_and_the_flags_after_the_dashes() -> None:
    args = versus.parse_arguments(["a", "b", "--candidate-option", "EvalFile=x.nnue", "--base-env", "K=1",
                                   "--", "-each", "nodes=100"])
    command = versus.build_command(args, Path("/c"), Path("/b"))
    assert command[-2:] == ["-each", "nodes=100"]
    assert "option.EvalFile=x.nnue" in command and command.index("option.EvalFile=x.nnue") < command.index("dir=/b")
    assert any(part.startswith("cmd=env K=1 ") for part in command)
