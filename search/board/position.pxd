# The Python face of the game model: a Position owns a C Board for the searchers.

from search.board.board cimport Board

cdef class Position:
    cdef Board* board
    cdef public str start_fen
    cdef public list move_stack
