"""The numba kernel of the exact counter's branching search (:mod:`.counter` drives it).

Depth-first search over the edges, with the rules and probing of :mod:`.propagation` at every
node; the arrays and ``sc`` slots are those that module describes.
"""

from __future__ import annotations

from numba import njit

from .propagation import (BACKTRACK, COUNT, DEPTH, DONE, FAIL, MLEN, MODE, NODES, OK, PACTIVE, PAUSE, PROPAGATE,
                          QH, QT, SOLVED, TLEN, ULEN, assign, fix, probe, undo)


@njit(cache=True)
def _choose(lat, rs):
    """The edge to branch on: at the path end with fewest open edges, else at the tightest clue."""
    st, pt, cl = rs.st, rs.pt, rs.cl
    pe, ce, P, NC, E = lat.pe, lat.ce, lat.P, lat.NC, lat.E
    best = -1
    bestunk = 99
    for p in range(P):
        if pt[p, 0] == 1 and pt[p, 1] < bestunk:
            best = p
            bestunk = pt[p, 1]
            if bestunk <= 2:
                break
    if best >= 0:
        for k in range(4):
            f = pe[best, k]
            if f >= 0 and st[f] < 0:
                return f
    bestc = -1
    bestslack = 99
    for c in range(NC):
        n = cl[c, 2]
        if n > cl[c, 0] and cl[c, 1] - (n - cl[c, 0]) < bestslack:
            bestc = c
            bestslack = cl[c, 1] - (n - cl[c, 0])
    if bestc >= 0:
        for k in range(4):
            f = ce[bestc, k]
            if st[f] < 0:
                return f
    for f in range(E):
        if st[f] < 0:
            return f
    return -1


@njit(cache=True)
def _record(st, sols, sc):
    k = sc[COUNT]
    if k < sols.shape[0]:
        for f in range(st.shape[0]):
            sols[k, f] = 1 if st[f] == 1 else 0
    sc[COUNT] += 1


@njit(cache=True, inline="always")
def _enough(r, st, sols, sc, limit):
    """Record the answer when ``r`` is SOLVED; True (and the search done) once ``limit`` are found."""
    if r == SOLVED:
        _record(st, sols, sc)
        if sc[COUNT] >= limit:
            sc[MODE] = DONE
            return True
    return False


@njit(cache=True)
def run(node_stop, limit, use_connect, probe_depth, lat, rs, sr):
    """Depth-first search until done, ``limit`` answers found, or ``sc[NODES]`` passes ``node_stop``.

    ``lv[d]`` = (edge, first value, phase, edge/mate/union trail marks) of decision ``d``; the
    first value tried is ``hint[edge]`` (on when -1).  Probing runs at decision depths up to
    ``probe_depth``.  Returns the mode (``DONE`` when the search is over).
    """
    st, sc, lv, sols, hint = rs.st, rs.sc, sr.lv, sr.sols, sr.hint
    while True:
        mode = sc[MODE]
        if mode == DONE:
            return mode
        if sc[NODES] >= node_stop:
            return mode
        r = OK
        if mode == PROPAGATE:
            if sc[PACTIVE] == 0:               # else a paused probing pass goes on from its fixed point
                r = fix(use_connect, lat, rs, sr.seen, sr.stack)
            e = -1
            if r == OK and sc[DEPTH] <= probe_depth:
                r, e = probe(node_stop, use_connect, False, lat, rs, sr)
            if r == PAUSE:
                return mode                     # resume: the fixed point is kept, probing goes on
            if r == OK:
                if e < 0:
                    e = _choose(lat, rs)
                if e < 0:                       # everything decided without closing a loop
                    r = FAIL
                else:
                    d = sc[DEPTH]
                    lv[d, 0] = e
                    lv[d, 1] = hint[e] if hint[e] >= 0 else 1
                    lv[d, 2] = 0
                    lv[d, 3] = sc[TLEN]
                    lv[d, 4] = sc[MLEN]
                    lv[d, 5] = sc[ULEN]
                    sc[DEPTH] += 1
                    r = assign(e, lv[d, 1], lat, rs)
                    if r == OK:
                        continue                # propagate next round
                    sc[QH] = 0
                    sc[QT] = 0
        # here r is FAIL or SOLVED (or we were already backtracking)
        if _enough(r, st, sols, sc, limit):
            return DONE
        sc[MODE] = BACKTRACK
        while True:
            if sc[DEPTH] == 0:
                sc[MODE] = DONE
                return DONE
            d = sc[DEPTH] - 1
            undo(lv[d, 3], lv[d, 4], lv[d, 5], lat, rs)
            if lv[d, 2] == 1:
                sc[DEPTH] -= 1
                continue
            lv[d, 2] = 1
            r = assign(lv[d, 0], 1 - lv[d, 1], lat, rs)
            if r == OK:
                sc[MODE] = PROPAGATE
                break
            sc[QH] = 0
            sc[QT] = 0
            if _enough(r, st, sols, sc, limit):
                return DONE
