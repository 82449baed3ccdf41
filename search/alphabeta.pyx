"""The principal-variation alpha-beta searcher and its iterative deepening driver.

All of it runs without the GIL.  The Python AlphaBetaSearcher (alphabeta_searcher.pyx) prepares a
SearchState, calls iterative_deepening inside ``with nogil:``, and is called back
with the GIL at the end of each iteration to print ``info`` lines.
"""

from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memset
from search.board.types cimport (
    Move, MoveList, MOVE_NONE, MOVE_NULL, MAX_PLY, MATE, MATE_IN_MAX_PLY,
    VALUE_INFINITE, VALUE_NONE, VALUE_DRAW, PAWN, KING, NO_PIECE, MOVE_PROMOTE_QUEEN, MOVE_EN_PASSANT,
    move_from, move_to, move_kind, is_promotion, piece_type_of,
)
from search.board.board cimport Board, do_move, undo_move, do_null_move, undo_null_move
from search.board.movegen cimport generate_legal, generate_noisy, has_legal_move
from search.tt cimport (
    TTEntry, tt_probe, tt_store, tt_prefetch, score_to_tt, score_from_tt,
    BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT,
)
from search.ordering cimport score_moves, score_captures, pick_next, is_capture, update_quiet_stats, record_move
from search.board.see cimport see, SEE_VALUE
from search.board.rules cimport is_draw_by_rule
from search.state cimport SearchState, RootMove
from search.params cimport SearchParams, base_reduction
from search.control cimport REPORT_ITERATION, REPORT_CURRMOVE, report_progress
from search.timeman cimport (elapsed_ms, hard_limit_reached, may_stop_early, iteration_budget_spent,
                             IterationSignals)
from search.tbprobe cimport should_probe, probe_wdl, TB_NO_RESULT, VALUE_TB_WIN
from search.correction cimport corrected_eval, update_correction
from eval.evaluator cimport evaluate_position
from eval.draw_scale cimport scale_for_draws
from eval.mating cimport score_kbn_versus_king

cdef extern from "clock.h" nogil:
    int load_flag "kestrel_load_flag"(int* flag)

cdef inline int futility_depth(const SearchParams* params, int depth, int moves_searched) noexcept nogil:
    """The depth a late quiet move would be searched to after its reduction."""
    cdef int reduced = depth - 1 - base_reduction(params, depth, moves_searched)
    return reduced if reduced > 0 else 0


# ---------------------------------------------------------------- time and stop

cdef inline void check_limits(SearchState* s) noexcept nogil:
    """Called every 1024 nodes: the UCI thread's stop, the clock and the node limit."""
    if load_flag(&s.signals.stop_requested):
        s.stopped = True
        return
    if s.completed_depth < 1:
        return      # always finish depth 1, so there is a searched move to play
    if s.node_limit and s.nodes >= s.node_limit:
        s.stopped = True
    elif hard_limit_reached(&s.time, s.signals):
        s.stopped = True


cdef inline bint enter_node(SearchState* s, int ply) noexcept nogil:
    """Count the node, look at the clock now and then, reset this ply's PV; True if the
    search must unwind."""
    s.nodes += 1
    if (s.nodes & 1023) == 0:
        check_limits(s)
    if s.stopped:
        return True
    s.pv_length[ply] = ply
    if ply > s.seldepth:
        s.seldepth = ply
    return False


cdef inline bint has_non_pawn_material(const Board* b, int colour) noexcept nogil:
    return (b.by_colour[colour] & ~b.by_type[PAWN] & ~b.by_type[KING]) != 0


cdef inline int static_evaluation(SearchState* s, const Board* b) noexcept nogil:
    """The evaluation the search sees: the network's or the weighted one, KBN v K's own score and
    scaled for draws where those are switched on."""
    cdef int value = evaluate_position(&s.evaluator, b)
    if s.config.kbn_mating:
        value = score_kbn_versus_king(b, value)
    if s.config.draw_scaling:
        value = scale_for_draws(b, value)
    return value


cdef inline void update_pv(SearchState* s, int ply, Move m) noexcept nogil:
    cdef int i
    s.pv_table[ply][ply] = m
    for i in range(ply + 1, s.pv_length[ply + 1]):
        s.pv_table[ply][i] = s.pv_table[ply + 1][i]
    s.pv_length[ply] = s.pv_length[ply + 1] if s.pv_length[ply + 1] > ply + 1 else ply + 1


# ---------------------------------------------------------------- quiescence

cdef int quiescence(SearchState* s, int alpha, int beta, int ply) noexcept nogil:
    """Resolve captures (and check evasions) until the position is quiet.

    Stand pat on the static evaluation, then try captures and promotions best
    first, skipping those that lose material by SEE or cannot raise alpha even
    with the captured piece (delta pruning).  In check every evasion is tried.
    """
    cdef Board* b = &s.board
    cdef MoveList moves
    cdef TTEntry entry
    cdef bint in_check = b.checkers != 0, tt_hit
    cdef int stand_pat, best, score, i, tt_score, captured_value, raw_eval = 0
    cdef Move m, best_move = MOVE_NONE, tt_move = MOVE_NONE
    cdef int original_alpha = alpha

    if enter_node(s, ply):
        return 0
    # The 50-move rule stays out of quiescence until an SPRT says whether it is worth the test.
    if is_draw_by_rule(b, ply, False):
        return VALUE_DRAW
    if ply >= MAX_PLY - 1:
        return static_evaluation(s, b) if not in_check else VALUE_DRAW

    tt_hit = s.config.quiescence_tt and tt_probe(s.tt, b.key, &entry)
    if tt_hit:
        tt_move = entry.move
        if s.config.tt_cutoffs:
            tt_score = score_from_tt(entry.score, ply)
            if ((entry.bound_age & 3) == BOUND_EXACT
                    or ((entry.bound_age & 3) == BOUND_LOWER and tt_score >= beta)
                    or ((entry.bound_age & 3) == BOUND_UPPER and tt_score <= alpha)):
                return tt_score

    if in_check:
        best = -VALUE_INFINITE
        stand_pat = -VALUE_INFINITE
        generate_legal(b, &moves)
        if moves.count == 0:
            return -MATE + ply
        score_moves(s, &moves, tt_move, ply)
    else:
        raw_eval = static_evaluation(s, b)
        stand_pat = corrected_eval(s, raw_eval)
        if stand_pat >= beta:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best = stand_pat
        generate_noisy(b, &moves)
        score_captures(s, &moves, tt_move)

    for i in range(moves.count):
        m = pick_next(&moves, i)
        if not in_check:
            if is_promotion(m) and move_kind(m) != MOVE_PROMOTE_QUEEN:
                continue    # under-promotions are never better in a capture race
            captured_value = SEE_VALUE[PAWN] if move_kind(m) == MOVE_EN_PASSANT else (
                SEE_VALUE[piece_type_of(b.squares[move_to(m)])] if b.squares[move_to(m)] != NO_PIECE else 0)
            if not is_promotion(m) and stand_pat + captured_value + s.params.delta_margin <= alpha:
                continue    # delta pruning: even winning the piece leaves us below alpha
            if see(b, m) < 0:
                continue
        record_move(s, ply, m)
        do_move(b, m)
        tt_prefetch(s.tt, b.key)
        score = -quiescence(s, -beta, -alpha, ply + 1)
        undo_move(b)
        if s.stopped:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = m
                update_pv(s, ply, m)
                if score >= beta:
                    break
    if best == -VALUE_INFINITE:
        best = -MATE + ply
    if s.config.quiescence_tt:
        tt_store(s.tt, b.key, 0, score_to_tt(best, ply),
                 BOUND_LOWER if best >= beta else (BOUND_EXACT if best > original_alpha else BOUND_UPPER),
                 best_move, raw_eval)
    return best


# ---------------------------------------------------------------- the main search

cdef int negamax(SearchState* s, int depth, int alpha, int beta, int ply, bint cut_node) noexcept nogil:
    cdef Board* b = &s.board
    cdef MoveList moves
    cdef TTEntry entry
    cdef Move quiets_tried[64]
    cdef int quiet_count = 0
    cdef bint pv_node = beta - alpha > 1
    cdef bint in_check = b.checkers != 0
    cdef bint tt_hit, quiet, capture, gives_check, improving
    cdef int static_eval, score, best = -VALUE_INFINITE, i, new_depth, reduction, moves_searched = 0
    cdef int tt_score = VALUE_NONE, tt_bound = BOUND_NONE, r, original_alpha = alpha, extension, reduced_depth
    cdef int wdl, tb_value, tb_bound, max_value = VALUE_INFINITE, bound
    cdef int raw_eval = 0          # the evaluation as the TT keeps it (static_eval may take a TT bound)
    cdef int singular_beta, singular_extension, probcut_beta
    cdef Move m, best_move = MOVE_NONE, tt_move = MOVE_NONE
    # Set while this node's hash move is tested for singularity: the same node searched
    # without that move, which must neither cut on nor overwrite the node's own TT entry.
    cdef Move excluded = s.excluded[ply]
    cdef const SearchParams* p = &s.params

    if depth <= 0:
        if s.config.quiescence:
            return quiescence(s, alpha, beta, ply)
        s.nodes += 1
        s.pv_length[ply] = ply
        if is_draw_by_rule(&s.board, ply):
            return VALUE_DRAW
        if not has_legal_move(b):
            return -MATE + ply if in_check else VALUE_DRAW
        return static_evaluation(s, b)

    if enter_node(s, ply):
        return 0

    if ply > 0:
        if is_draw_by_rule(&s.board, ply):
            return VALUE_DRAW
        if ply >= MAX_PLY - 1:
            return static_evaluation(s, b) if not in_check else VALUE_DRAW
        # Mate distance pruning: no line from here can beat a mate already found nearer the root.
        if alpha < -MATE + ply:
            alpha = -MATE + ply
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha

    tt_hit = tt_probe(s.tt, b.key, &entry)
    if tt_hit:
        tt_move = entry.move
        tt_score = score_from_tt(entry.score, ply)
        tt_bound = entry.bound_age & 3
        if (s.config.tt_cutoffs and not pv_node and entry.depth >= depth and excluded == MOVE_NONE
                and ((tt_bound == BOUND_EXACT)
                     or (tt_bound == BOUND_LOWER and tt_score >= beta)
                     or (tt_bound == BOUND_UPPER and tt_score <= alpha))):
            return tt_score

    # The tablebases know this position exactly (after a capture or pawn move with few men
    # left): a result that settles the window ends the search here, and the table keeps it.
    if ply > 0 and excluded == MOVE_NONE and should_probe(&s.tb, b, depth):
        wdl = probe_wdl(&s.tb, b)
        if wdl != TB_NO_RESULT:
            if wdl > 0:
                tb_value, tb_bound = VALUE_TB_WIN - ply, BOUND_LOWER
            elif wdl < 0:
                tb_value, tb_bound = -VALUE_TB_WIN + ply, BOUND_UPPER
            else:
                tb_value, tb_bound = VALUE_DRAW, BOUND_EXACT
            if (tb_bound == BOUND_EXACT or (tb_bound == BOUND_LOWER and tb_value >= beta)
                    or (tb_bound == BOUND_UPPER and tb_value <= alpha)):
                tt_store(s.tt, b.key, depth + 6 if depth + 6 < MAX_PLY else MAX_PLY - 1,
                         score_to_tt(tb_value, ply), tb_bound, MOVE_NONE,
                         0 if in_check else static_evaluation(s, b))
                return tb_value
            # In a PV node the search goes on (it needs a line to show), within what the tables
            # allow: no worse than a win, no better than a loss.
            if pv_node:
                if tb_bound == BOUND_LOWER:
                    best = tb_value
                    if tb_value > alpha:
                        alpha = tb_value
                else:
                    max_value = tb_value

    if in_check:
        static_eval = VALUE_NONE
        s.static_eval[ply] = VALUE_NONE
        improving = False
    else:
        raw_eval = entry.static_eval if tt_hit else static_evaluation(s, b)
        static_eval = corrected_eval(s, raw_eval)
        s.static_eval[ply] = static_eval
        improving = ply >= 2 and s.static_eval[ply - 2] != VALUE_NONE and static_eval > s.static_eval[ply - 2]
        # A stored bound is a better guess than the static evaluation.
        if tt_hit and tt_score != VALUE_NONE and (
                (tt_bound == BOUND_LOWER and tt_score > static_eval)
                or (tt_bound == BOUND_UPPER and tt_score < static_eval)):
            static_eval = tt_score

    if not in_check and not pv_node and ply > 0 and excluded == MOVE_NONE:
        # Reverse futility: far enough above beta that a shallow search will not fall back.
        if (s.config.reverse_futility and depth <= p.rfp_max_depth
                and static_eval - p.rfp_margin * (depth - improving) >= beta
                and static_eval < MATE_IN_MAX_PLY and beta > -MATE_IN_MAX_PLY):
            return static_eval
        # Null move: if passing still fails high, a real move will too.  Not with only
        # pawns left (zugzwang), nor twice in a row.
        if (s.config.null_move and depth >= p.nmp_min_depth and static_eval >= beta
                and s.move_stack[ply - 1] != MOVE_NULL
                and has_non_pawn_material(b, b.side_to_move) and beta > -MATE_IN_MAX_PLY):
            r = p.nmp_base_reduction + depth // p.nmp_depth_divisor
            if static_eval - beta >= p.nmp_eval_margin:
                r += 1
            record_move(s, ply, MOVE_NULL)
            do_null_move(b)
            score = -negamax(s, depth - 1 - r, -beta, -beta + 1, ply + 1, not cut_node)
            undo_null_move(b)
            if s.stopped:
                return 0
            if score >= beta:
                if score >= MATE_IN_MAX_PLY:
                    score = beta    # an unproven mate from a null move
                # Verify at high depth, where zugzwang would cost most.
                if depth < p.nmp_verify_depth:
                    return score
                score = negamax(s, depth - 1 - r, beta - 1, beta, ply, False)
                if score >= beta:
                    return score

    # ProbCut: a capture whose shallow search beats beta by a wide margin would almost surely
    # fail high at full depth too.  Each capture that can (by SEE) is tried by quiescence first,
    # then by a search some plies shallower, against beta + margin.
    if (s.config.probcut and not pv_node and not in_check and excluded == MOVE_NONE
            and depth >= p.probcut_min_depth and -MATE_IN_MAX_PLY < beta < MATE_IN_MAX_PLY
            and not (tt_hit and entry.depth >= depth - p.probcut_reduction + 1
                     and tt_score != VALUE_NONE and tt_score < beta + p.probcut_margin)):
        probcut_beta = beta + p.probcut_margin
        generate_legal(b, &moves)
        score_moves(s, &moves, tt_move, ply)
        for i in range(moves.count):
            m = pick_next(&moves, i)
            if not is_capture(s, m) or see(b, m) < probcut_beta - static_eval:
                continue
            record_move(s, ply, m)
            do_move(b, m)
            tt_prefetch(s.tt, b.key)
            score = -quiescence(s, -probcut_beta, -probcut_beta + 1, ply + 1)
            if score >= probcut_beta:
                score = -negamax(s, depth - p.probcut_reduction, -probcut_beta, -probcut_beta + 1, ply + 1,
                                 not cut_node)
            undo_move(b)
            if s.stopped:
                return 0
            if score >= probcut_beta:
                tt_store(s.tt, b.key, depth - p.probcut_reduction + 1, score_to_tt(score, ply), BOUND_LOWER, m,
                         raw_eval)
                return score

    # Internal iterative reduction: without a hash move, ordering is poor; search less.
    if s.config.internal_reduction and depth >= p.iir_min_depth and tt_move == MOVE_NONE and (pv_node or cut_node):
        depth -= 1

    generate_legal(b, &moves)
    if moves.count == 0:
        return -MATE + ply if in_check else VALUE_DRAW
    score_moves(s, &moves, tt_move, ply)

    for i in range(moves.count):
        m = pick_next(&moves, i)
        if m == excluded:
            continue
        capture = is_capture(s, m)
        quiet = not capture and not is_promotion(m)

        # Singular extension: if every other move falls well short of the hash move's score
        # in a search of half the depth, the hash move alone holds this node and is searched
        # a ply deeper.  If even the others reach beta, the node cuts (multi-cut); if the hash
        # move is not alone but its score beats beta, it gets a ply less.
        singular_extension = 0
        if (s.config.singular_extension and ply > 0 and m == tt_move and excluded == MOVE_NONE
                and depth >= p.se_min_depth and (tt_bound == BOUND_LOWER or tt_bound == BOUND_EXACT)
                and entry.depth >= depth - p.se_tt_depth_margin
                and -MATE_IN_MAX_PLY < tt_score < MATE_IN_MAX_PLY
                and ply < 2 * s.completed_depth + 8):
            singular_beta = tt_score - p.se_margin_per_depth * depth
            s.excluded[ply] = m
            score = negamax(s, (depth - 1) // 2, singular_beta - 1, singular_beta, ply, cut_node)
            s.excluded[ply] = MOVE_NONE
            if s.stopped:
                return 0
            if score < singular_beta:
                singular_extension = 1
            elif singular_beta >= beta:
                return singular_beta
            elif tt_score >= beta:
                singular_extension = -1

        if (s.config.see_pruning and ply > 0 and not in_check and not quiet and depth <= p.see_max_depth
                and best > -MATE_IN_MAX_PLY and moves_searched > 0 and see(b, m) < -p.see_margin * depth):
            continue    # a capture that loses too much at low depth

        record_move(s, ply, m)
        do_move(b, m)
        tt_prefetch(s.tt, b.key)
        gives_check = b.checkers != 0

        # Shallow pruning of quiet moves that cannot reach alpha.  Checks are never
        # pruned: a quiet check is how a mate in one hides among late moves.
        if (ply > 0 and not in_check and quiet and not gives_check
                and best > -MATE_IN_MAX_PLY and moves_searched > 0):
            # Late-move pruning: at low depth, the last quiet moves are almost never best.
            if (s.config.late_move_pruning and depth <= p.lmp_max_depth
                    and quiet_count >= p.lmp_base + depth * depth * (2 if improving else 1)):
                undo_move(b)
                continue
            # Futility: nor are quiet moves when the position is far below alpha.  Judged at
            # the depth the move would be searched to after its reduction, with a margin that
            # grows with that depth and with the move's history.  Never against a mate score:
            # there every move looks futile, the quicker mate too.
            if s.config.futility and alpha < MATE_IN_MAX_PLY:
                reduced_depth = futility_depth(p, depth, moves_searched)
                if (reduced_depth <= p.futility_max_depth
                        and static_eval + p.futility_base + p.futility_per_depth * reduced_depth
                        + s.history[1 - b.side_to_move][move_from(m)][move_to(m)] // p.futility_history_divisor
                        <= alpha):
                    undo_move(b)
                    continue

        extension = 0
        if gives_check and s.config.check_extension and ply < 2 * s.completed_depth + 8:
            # Only checks that do not lose material are extended: a check that hangs the
            # checking piece rarely starts an attack, and extending it only costs nodes.
            # SEE reads the board before the move; checks are few, so it is taken back for it.
            undo_move(b)
            extension = 1 if see(b, m) >= 0 else 0
            do_move(b, m)
        if singular_extension > 0:
            extension = 1
        elif singular_extension < 0:
            extension -= 1
        new_depth = depth - 1 + extension

        if moves_searched == 0:
            score = -negamax(s, new_depth, -beta, -alpha, ply + 1, False if pv_node else not cut_node)
        else:
            reduction = 0
            if (s.config.late_move_reductions and depth >= p.lmr_min_depth
                    and moves_searched >= 2 + (1 if pv_node else 0) and quiet and not in_check):
                reduction = base_reduction(p, depth, moves_searched)
                if pv_node:
                    reduction -= 1
                if cut_node:
                    reduction += 1
                if not improving:
                    reduction += 1
                if gives_check:
                    reduction -= 1
                if m == s.killers[ply][0] or m == s.killers[ply][1]:
                    reduction -= 1
                reduction -= s.history[1 - b.side_to_move][move_from(m)][move_to(m)] // p.lmr_history_divisor
                if reduction < 0:
                    reduction = 0
                if reduction > new_depth - 1:
                    reduction = new_depth - 1 if new_depth > 1 else 0
            score = -negamax(s, new_depth - reduction, -alpha - 1, -alpha, ply + 1, True)
            if score > alpha and reduction > 0:
                score = -negamax(s, new_depth, -alpha - 1, -alpha, ply + 1, not cut_node)
            if score > alpha and score < beta:
                score = -negamax(s, new_depth, -beta, -alpha, ply + 1, False)
        undo_move(b)
        if s.stopped:
            return 0
        moves_searched += 1

        if score > best:
            best = score
            if score > alpha:
                best_move = m
                update_pv(s, ply, m)
                if score >= beta:
                    if quiet:
                        update_quiet_stats(s, m, quiets_tried, quiet_count, depth, ply)
                    break
                alpha = score
        if quiet and quiet_count < 64:
            quiets_tried[quiet_count] = m
            quiet_count += 1

    if moves_searched == 0:
        # Every move was pruned (only possible with futility on): fail low safely.
        return alpha
    if best > max_value:
        best = max_value        # the tables say this position is lost, whatever the search saw
    if excluded != MOVE_NONE:
        return best             # a singularity test: the node's own entry stays as it was
    bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best > original_alpha else BOUND_UPPER)
    # Learn the evaluation's error where the result says which way it erred: a fail high above
    # the static evaluation, a fail low below it, or an exact score; a quiet best move (a capture's
    # score is the capture's, not the position's), no mate or tablebase score.
    if (s.config.correction_history and not in_check
            and -VALUE_TB_WIN + MAX_PLY < best < VALUE_TB_WIN - MAX_PLY
            and (best_move == MOVE_NONE or (not is_capture(s, best_move) and not is_promotion(best_move)))
            and not (bound == BOUND_LOWER and best <= s.static_eval[ply])
            and not (bound == BOUND_UPPER and best >= s.static_eval[ply])):
        update_correction(s, depth, best, s.static_eval[ply])
    tt_store(s.tt, b.key, depth, score_to_tt(best, ply), bound, best_move, raw_eval)
    return best


# ---------------------------------------------------------------- the root

cdef void sort_root_moves(SearchState* s, int start) noexcept nogil:
    """Stable insertion sort by score, best first, from index `start`."""
    cdef int i, j
    cdef RootMove tmp
    for i in range(start + 1, s.root_count):
        tmp = s.root_moves[i]
        j = i - 1
        while j >= start and s.root_moves[j].score < tmp.score:
            s.root_moves[j + 1] = s.root_moves[j]
            j -= 1
        s.root_moves[j + 1] = tmp


cdef int search_root(SearchState* s, int depth, int alpha, int beta) noexcept nogil:
    cdef Board* b = &s.board
    cdef RootMove* rm
    cdef int i, j, score, best = -VALUE_INFINITE, new_depth, searched = 0
    cdef int64_t elapsed
    cdef uint64_t nodes_before
    s.pv_length[0] = 0
    for i in range(s.pv_index, s.root_count):
        rm = &s.root_moves[i]
        elapsed = elapsed_ms(s.signals)
        record_move(s, 0, rm.move)
        if elapsed > 3000 and elapsed - s.last_currmove_report_ms > 1000:
            s.last_currmove_report_ms = elapsed
            s.currmove_number = i - s.pv_index + 1
            report_progress(s.reporter, REPORT_CURRMOVE, depth)
        nodes_before = s.nodes
        do_move(b, rm.move)
        new_depth = depth - 1 + (1 if (b.checkers and s.config.check_extension) else 0)
        if searched == 0:
            score = -negamax(s, new_depth, -beta, -alpha, 1, False)
        else:
            score = -negamax(s, new_depth, -alpha - 1, -alpha, 1, True)
            if score > alpha and score < beta:
                score = -negamax(s, new_depth, -beta, -alpha, 1, False)
        undo_move(b)
        rm.nodes += s.nodes - nodes_before
        if s.stopped:
            break
        searched += 1
        if searched == 1 or score > alpha:
            rm.score = score
            rm.seldepth = s.seldepth
            rm.bound = BOUND_LOWER if score >= beta else (BOUND_UPPER if score <= alpha else BOUND_EXACT)
            rm.pv[0] = rm.move
            rm.pv_length = 1
            for j in range(1, s.pv_length[1]):
                if rm.pv_length >= MAX_PLY:
                    break
                rm.pv[rm.pv_length] = s.pv_table[1][j]
                rm.pv_length += 1
            if searched > 1 and i != s.pv_index:
                s.best_move_changes += 1
        else:
            rm.score = -VALUE_INFINITE
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


cdef void iterative_deepening(SearchState* s) noexcept nogil:
    cdef int depth, score, delta, alpha, beta, pv, max_depth, i, lines
    cdef Move last_best = MOVE_NONE
    cdef IterationSignals signals
    cdef int score_average = VALUE_INFINITE     # the iterations' running score (none yet)

    s.nodes = 0
    s.completed_depth = 0
    s.stopped = False
    s.best_move_changes = 0
    signals.stable_iterations = 0
    s.move_stack[0] = MOVE_NONE
    memset(s.excluded, 0, sizeof(s.excluded))
    for i in range(s.root_count):
        s.root_moves[i].score = -VALUE_INFINITE
        s.root_moves[i].previous_score = -VALUE_INFINITE
    max_depth = s.depth_limit if 0 < s.depth_limit < MAX_PLY - 8 else MAX_PLY - 8
    lines = s.multipv if s.multipv < s.root_count else s.root_count

    if s.root_count == 0:
        max_depth = 0

    # Lazy SMP: helper threads of odd index search one ply deeper than the main thread,
    # so the threads fill the shared table with different trees.
    for depth in range(1 + (s.thread_index & 1), max_depth + 1):
        for i in range(s.root_count):
            s.root_moves[i].previous_score = s.root_moves[i].score
        for pv in range(lines):
            s.pv_index = pv
            s.seldepth = 0
            score = s.root_moves[pv].previous_score
            delta = s.params.aspiration_delta
            if (s.config.aspiration and depth >= s.params.aspiration_min_depth
                    and -MATE_IN_MAX_PLY < score < MATE_IN_MAX_PLY):
                alpha = score - delta
                beta = score + delta
            else:
                alpha = -VALUE_INFINITE
                beta = VALUE_INFINITE
            while True:
                score = search_root(s, depth, alpha, beta)
                sort_root_moves(s, pv)
                if s.stopped:
                    break
                if score <= alpha:
                    beta = (alpha + beta) // 2
                    alpha = score - delta if score - delta > -VALUE_INFINITE else -VALUE_INFINITE
                elif score >= beta:
                    beta = score + delta if score + delta < VALUE_INFINITE else VALUE_INFINITE
                else:
                    break
                delta += delta // 2 + 5
                if delta > 1000:
                    alpha = -VALUE_INFINITE
                    beta = VALUE_INFINITE
            if s.stopped:
                break
        if s.stopped:
            break
        s.completed_depth = depth
        report_progress(s.reporter, REPORT_ITERATION, depth)

        if s.mate_limit and s.root_moves[0].score >= MATE - 2 * s.mate_limit:
            break
        if s.node_limit and s.nodes >= s.node_limit:
            break
        if s.soft_node_limit and s.nodes >= s.soft_node_limit:
            break
        if may_stop_early(&s.time, s.signals):
            # Stop deepening early when the best move is settled; think longer while it changes
            # or while the score falls.
            if s.root_moves[0].move == last_best:
                signals.stable_iterations += 1
            else:
                signals.stable_iterations = 0
            last_best = s.root_moves[0].move
            signals.best_move_changes = s.best_move_changes
            signals.best_move_share = -1.0
            if s.config.node_time_management and s.nodes > 0:
                signals.best_move_share = <double>s.root_moves[0].nodes / <double>s.nodes
            score = s.root_moves[0].score
            signals.score_drop = 0
            if -MATE_IN_MAX_PLY < score < MATE_IN_MAX_PLY:
                if score_average != VALUE_INFINITE:
                    signals.score_drop = score_average - score
                    score_average = (score_average + score) // 2
                else:
                    score_average = score
            if iteration_budget_spent(&s.time, s.signals, &signals):
                break
            s.best_move_changes = s.best_move_changes // 2
