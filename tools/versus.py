"""Play one commit of Kestrel against another: ``python -m tools.versus CANDIDATE BASE -- RUNNER_FLAGS``.

Every strength figure of the experiments ledger (docs/experiments.csv) is a match between two
builds of this repository.  This command makes each build reproducible from the ledger's row:
it checks each revision out once into ``runs/versus/<sha>`` (a git worktree, ignored by git),
builds its Cython core in place, and hands both to the tournament runner
(``python -m tournaments``) with the runner flags given after ``--``, verbatim::

    python -m tools.versus HEAD 0bf6984 --candidate-name Timeman --base-name Base -- \\
        -each tc=2+0.02 option.Hash=16 -games 2 -rounds 2000 -repeat -concurrency 2 \\
        -openings file=../shared/data/openings/2moves_v1.epd order=random -srand 7 \\
        -sprt elo0=0 elo1=10 -pgnout runs/timeman.pgn

``WORKTREE`` as a revision means this checkout as it is (built in place first).  A switch
(``--candidate-env KESTREL_SEARCH_ON=x``) or a UCI option (``--candidate-option Hash=64``) can be
given to either side alone, so an ablation is a match of one commit against itself.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHECKOUTS = REPO / "runs" / "versus"
WORKTREE = "WORKTREE"


def git(*args: str) -> str:
    """The output of a git command in this repository (CalledProcessError when it fails)."""
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def checkout(revision: str, build: bool = True) -> Path:
    """A built checkout of `revision`: this repository for WORKTREE, else runs/versus/<sha>.  Without
    `build`, this repository is taken as it is built already (the tests' smoke rounds)."""
    if revision == WORKTREE:
        folder = REPO
    else:
        sha = git("rev-parse", "--verify", f"{revision}^{{commit}}")
        folder = CHECKOUTS / sha[:12]
        if not (folder / ".git").exists():
            CHECKOUTS.mkdir(parents=True, exist_ok=True)
            git("worktree", "add", "--detach", "--force", str(folder), sha)
    if not build and revision == WORKTREE:
        return folder
    print(f"building {revision} in {folder}", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace", "-j", "2"], cwd=folder,
                   check=True, stdout=subprocess.DEVNULL)
    return folder


def checkouts(candidate: str, base: str) -> tuple[Path, Path]:
    """Built checkouts of both revisions; one build serves both sides of a revision against itself
    (a match of a switch or a net)."""
    def commit(revision: str) -> str:
        return revision if revision == WORKTREE else git("rev-parse", "--verify", f"{revision}^{{commit}}")

    built = checkout(candidate)
    return built, built if commit(candidate) == commit(base) else checkout(base)


def engine_flags(folder: Path, name: str, env: list[str], options: list[str]) -> list[str]:
    """The runner's ``-engine`` flags for the build in `folder`."""
    command = ["env", *env] if env else []
    command += [sys.executable, "-m", "uci_engine"]
    flags = ["-engine", f"cmd={shlex.join(command)}", f"dir={folder}", f"name={name}"]
    for option in options:
        key, _, value = option.partition("=")
        flags.append(f"option.{key}={value}")
    return flags


def build_command(args: argparse.Namespace, candidate: Path, base: Path) -> list[str]:
    """The whole runner command line for the two builds and the flags after ``--``."""
    runner_flags: list[str] = args.runner_flags
    return ([sys.executable, "-m", "tournaments"]
            + engine_flags(candidate, args.candidate_name, args.candidate_env, args.candidate_option)
            + engine_flags(base, args.base_name, args.base_env, args.base_option)
            + runner_flags)


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """The command line; everything after ``--`` goes to the runner untouched."""
    runner_flags: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, runner_flags = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(prog="python -m tools.versus", description=__doc__.split("\n\n")[0])
    parser.add_argument("candidate", help="git revision of the candidate (or WORKTREE)")
    parser.add_argument("base", help="git revision of the base (or WORKTREE)")
    for side in ("candidate", "base"):
        parser.add_argument(f"--{side}-name", default=side.capitalize(), help=f"the {side}'s name in the PGN")
        parser.add_argument(f"--{side}-env", action="append", default=[], metavar="NAME=VALUE",
                            help=f"an environment variable for the {side} only (repeatable)")
        parser.add_argument(f"--{side}-option", action="append", default=[], metavar="NAME=VALUE",
                            help=f"a UCI option for the {side} only (repeatable)")
    args = parser.parse_args(argv)
    args.runner_flags = runner_flags
    return args


def main(argv: list[str] | None = None) -> int:
    """Build both revisions and run the match; the runner's exit status."""
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    try:
        candidate, base = checkouts(args.candidate, args.base)
    except subprocess.CalledProcessError as error:
        detail = error.stderr.strip() if isinstance(error.stderr, str) else ""
        print(f"versus: {' '.join(map(str, error.cmd))} failed {detail}", file=sys.stderr)
        return 2
    command = build_command(args, candidate, base)
    print(shlex.join(command), file=sys.stderr, flush=True)
    return subprocess.run(command, cwd=REPO).returncode


if __name__ == "__main__":
    sys.exit(main())
