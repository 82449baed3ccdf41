"""Kestrel's lab: data generators, tuners, fitters, suite solvers and match tools, above the engine's layers (no layer imports this package)."""
