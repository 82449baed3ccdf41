"""A printable table of the evaluation breakdown (for a UCI ``eval`` command and for people)."""

from __future__ import annotations

Breakdown = dict[str, int | tuple[int, int]]


def format_breakdown(terms: Breakdown) -> str:
    """One line per term: mg, eg and the phase-blended value, all from White's view.

    The last line is the total from the side to move's view, as the search sees it.
    """
    phase = int(terms["phase"])  # type: ignore[arg-type]
    lines = [f"{'term':<12} {'mg':>7} {'eg':>7} {'blend':>7}"]
    for name, value in terms.items():
        if name in ("phase", "total"):
            continue
        mg, eg = value  # type: ignore[misc]
        # Blended per term for reading only: the total blends the sums, so rows may not add up
        # to it exactly (rounding).
        blend = (mg * phase + eg * (24 - phase)) / 24
        lines.append(f"{name:<12} {mg:>7} {eg:>7} {blend:>7.1f}")
    lines.append(f"phase {phase}/24, total {terms['total']} (side to move)")
    return "\n".join(lines)
