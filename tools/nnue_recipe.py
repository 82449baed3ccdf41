"""Training recipes: the settings that made a net, as a committed JSON file the trainer reads.

A recipe (``tools/recipes/NAME.json``) is an object whose ``settings`` hold one value per training
option of ``python -m tools.nnue_train``, named as on the command line without the dashes
(``"weight-decay": 0.1``, ``"king-mirror": true``); its other keys are notes for people (where the
data came from, the ledger row).  Every training option is in it: the trainer has no defaults of its
own for them, so the recipe of the shipped net is the trainer's default, and a flag on the command
line overrides one value.  The recipe's name (its file's stem) goes into the net's description.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.networks import BUILTIN_NET

RECIPES_FOLDER = Path(__file__).resolve().parent / "recipes"
# The shipped net's recipe bears its name: eval/nets/kestrel-8.nnue was made by recipes/kestrel-8.json.
DEFAULT_RECIPE = RECIPES_FOLDER / (Path(BUILTIN_NET).stem + ".json")
# Beyond this a recipe is not a recipe (it is read whole before any check).
MAX_RECIPE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Recipe:
    """A recipe's name and its settings, keyed by the options' argparse destinations (checked values)."""

    name: str
    path: Path
    settings: Mapping[str, Any]


def _checked(name: str, value: Any, action: argparse.Action) -> Any:
    """`value` as the trainer's option `name` would parse it; ValueError saying what is wrong."""
    if isinstance(action, argparse.BooleanOptionalAction):
        if not isinstance(value, bool):
            raise ValueError(f"{name}: {value!r} is not true or false")
        return value
    if action.choices is not None:
        if value not in action.choices:
            raise ValueError(f"{name}: {value!r} is not one of {', '.join(map(str, action.choices))}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name}: {value!r} is not a number")
    assert action.type is not None and callable(action.type)
    try:
        return action.type(str(value))
    except argparse.ArgumentTypeError as error:
        raise ValueError(f"{name}: {error}") from None


def load_recipe(path: Path, options: Mapping[str, argparse.Action]) -> Recipe:
    """The recipe in the file at `path`, each setting checked by the option it sets; OSError when the
    file cannot be read, ValueError naming the problem when it is not a whole recipe of `options`."""
    with open(path, "rb") as file:
        text = file.read(MAX_RECIPE_BYTES + 1)
    if len(text) > MAX_RECIPE_BYTES:
        raise ValueError(f"recipe {path}: larger than {MAX_RECIPE_BYTES} bytes; not a recipe")
    try:
        content = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"recipe {path}: not JSON ({error})") from None
    settings = content.get("settings") if isinstance(content, dict) else None
    if not isinstance(settings, dict):
        raise ValueError(f"recipe {path}: no \"settings\" object")
    unknown = sorted(set(settings) - set(options))
    missing = sorted(set(options) - set(settings))
    if unknown or missing:
        problems = ([f"unknown settings {', '.join(unknown)}"] if unknown else []) + \
                   ([f"missing settings {', '.join(missing)}"] if missing else [])
        raise ValueError(f"recipe {path}: {'; '.join(problems)} (the settings are the trainer's options: "
                         f"{', '.join(sorted(options))})")
    try:
        checked = {options[name].dest: _checked(name, value, options[name]) for name, value in settings.items()}
    except ValueError as error:
        raise ValueError(f"recipe {path}: {error}") from None
    return Recipe(name=path.stem, path=path, settings=checked)


def apply_recipe(args: argparse.Namespace, recipe: Recipe) -> frozenset[str]:
    """Fill each option of `args` left unset (None) on the command line from `recipe`; returns the
    destinations the command line did set, which override the recipe."""
    given = frozenset(dest for dest in recipe.settings if getattr(args, dest) is not None)
    for dest, value in recipe.settings.items():
        if dest not in given:
            setattr(args, dest, value)
    return given
