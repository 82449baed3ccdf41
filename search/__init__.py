"""Kestrel's searchers: alpha-beta and MCTS over the game model in ``search.board``.

The layers read bottom to top: ``search.board`` (the game) <- ``eval`` (the evaluation)
<- ``search`` (transposition table, ordering, searchers, time) <- ``uci_engine``.
This package's ``__init__`` imports nothing, so that ``eval`` can use ``search.board``
without loading the searchers.
"""
