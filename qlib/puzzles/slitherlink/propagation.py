"""The numba kernels of the exact Slitherlink counter (:mod:`.counter`): rules, probing, search.

The kernels take named tuples (none has more than a few arguments): the board's fixed tables as a
:class:`~.counter.Lattice` (``lat``), the arrays the rules change as :class:`~.counter.Rules`
(``rs``), and the search's own as :class:`~.counter.Search` (``sr``).  A kernel takes no more than
it uses: numba counts references to every array an argument holds, at every call.  The arrays (int64
but ``sols``):

* ``st`` (E,): edge value, -1 undecided, 0 off, 1 on;
* ``pt`` (P, 4): per point, on edges, undecided edges, mate (other end of its path; itself when
  isolated), path length (at path ends);
* ``cl`` (NC, 4): per cell, on edges, undecided edges, clue (-1: none), excluded count (-1: none);
* ``uf`` (NC+1, 4): inside/outside classes of the cells (NC: the outside): parent, parity to
  parent, size, next member (circular list per class);
* ``trail`` (E,), ``mtrail`` (2E+2, 3), ``utrail`` (E+1,): undo stacks (edges, mates, unions);
* ``queue``: propagation items, point p, cell P+c, loop check P+NC+e, parity check P+NC+E+e;
* ``sc``: scalars (the slots below); the ``P*`` slots keep a probing pass that paused midway;
* ``seen``, ``stack``: the reach check's marks and stack; ``lv`` (E+1, 6): per decision, edge,
  first value, phase, the three trail marks; ``sols`` (uint8): the answers kept; ``mk``, ``mv``,
  ``common``, ``equiv``: probing scratch; ``hint``: the value each decision tries first (-1: on).

Only :mod:`.counter` and the branching search's kernel (:mod:`.branching`, which assigns, undoes,
fixes and probes at every node) call in here: :func:`fix` and :func:`probe` (the root node's rules),
:func:`refute` and :func:`shorten` (a set of cell values against the rules), and the ``sc`` slots,
modes and results above; :mod:`.branching` also uses :func:`assign` and :func:`undo`.  The rest is private.
"""

from __future__ import annotations

import numpy as np
from numba import njit

(TLEN, MLEN, DEPTH, NON, NBAD, MODE, COUNT, NODES, QH, QT, CHECKS, ULEN, STAMP,
 STAMP2, PACTIVE, PNEXT, PCHANGED, PBEST, PSCORE) = range(19)
NSC = 19
PROPAGATE, BACKTRACK, DONE = 0, 1, 2                # modes
OK, FAIL, SOLVED, CHANGED, PAUSE = 0, 1, 2, 3, 4    # results of one assignment / propagation


@njit(cache=True)
def _edge_between(x, y, pe, ends):
    for k in range(4):
        f = pe[x, k]
        if f >= 0 and (ends[f, 0] == y or ends[f, 1] == y):
            return f
    return -1


@njit(cache=True)
def _bad(cl, c, count):
    """1 if ``count`` sides drawn around cell ``c`` break its clue (or hit its excluded count)."""
    if cl[c, 2] >= 0:
        return 1 if count != cl[c, 2] else 0
    if cl[c, 3] >= 0:
        return 1 if count == cl[c, 3] else 0
    return 0


@njit(cache=True)
def _find(uf, x):
    par = 0
    while uf[x, 0] != x:
        par ^= uf[x, 1]
        x = uf[x, 0]
    return x, par


@njit(cache=True)
def _push(queue, sc, item):
    if sc[QT] >= queue.shape[0]:
        raise IndexError("propagation queue overflow")
    queue[sc[QT]] = item
    sc[QT] += 1


@njit(cache=True)
def _union(r1, r2, rel, lat, rs):
    """Join the classes of roots ``r1`` and ``r2`` (``r1 XOR r2 = rel``), kept on the union trail; queues the
    parity check of every undecided edge of the smaller class's members."""
    st, uf, utrail, queue, sc = rs.st, rs.uf, rs.utrail, rs.queue, rs.sc
    bnd, ce, P, NC, E = lat.bnd, lat.ce, lat.P, lat.NC, lat.E
    ra, rb = r1, r2
    if uf[ra, 2] < uf[rb, 2]:
        ra, rb = rb, ra
    # every undecided edge of rb's members may now join two cells of one class
    w = rb
    while True:
        if w == NC:
            for k in range(bnd.shape[0]):
                g = bnd[k]
                if st[g] < 0:
                    _push(queue, sc, P + NC + E + g)
        else:
            for k in range(4):
                g = ce[w, k]
                if st[g] < 0:
                    _push(queue, sc, P + NC + E + g)
        w = uf[w, 3]
        if w == rb:
            break
    uf[rb, 0] = ra
    uf[rb, 1] = rel
    uf[ra, 2] += uf[rb, 2]
    nb = uf[rb, 3]
    uf[rb, 3] = uf[ra, 3]
    uf[ra, 3] = nb
    utrail[sc[ULEN]] = rb
    sc[ULEN] += 1


@njit(cache=True)
def assign(e, val, lat, rs):
    """Assign edge ``e``; update counts, classes, the path ends (mate) and the queue.

    The cells beside ``e`` differ (val 1) or agree (val 0) in inside/outside: their classes join.
    """
    st, pt, cl, uf, trail, mtrail = rs.st, rs.pt, rs.cl, rs.uf, rs.trail, rs.mtrail
    queue, sc = rs.queue, rs.sc
    ends, ec, ecd, pe, P, NC = lat.ends, lat.ec, lat.ecd, lat.pe, lat.P, lat.NC
    st[e] = val
    trail[sc[TLEN]] = e
    sc[TLEN] += 1
    a = ends[e, 0]
    b = ends[e, 1]
    pt[a, 1] -= 1
    pt[b, 1] -= 1
    _push(queue, sc, a)
    _push(queue, sc, b)
    for k in range(2):
        c = ec[e, k]
        if c >= 0:
            cl[c, 1] -= 1
            if val == 1:
                sc[NBAD] += _bad(cl, c, cl[c, 0] + 1) - _bad(cl, c, cl[c, 0])
                cl[c, 0] += 1
            _push(queue, sc, P + c)
    if val == 1:                                # every count first: _undo reverts them all
        sc[NON] += 1
        pt[a, 0] += 1
        pt[b, 0] += 1
    r1, p1 = _find(uf, ecd[e, 0])               # the classes of the cells beside e
    r2, p2 = _find(uf, ecd[e, 1])
    if r1 == r2:
        if (p1 ^ p2) != val:
            return FAIL
    else:
        _union(r1, r2, p1 ^ p2 ^ val, lat, rs)
    if val == 0:
        return OK
    if pt[a, 0] > 2 or pt[b, 0] > 2:
        return FAIL
    x = pt[a, 2]
    y = pt[b, 2]
    if x == b:                                  # closes a loop
        if pt[a, 3] + 1 == sc[NON] and sc[NBAD] == 0:
            return SOLVED
        return FAIL
    length = pt[a, 3] + pt[b, 3] + 1
    m = sc[MLEN]
    mtrail[m, 0] = x
    mtrail[m, 1] = pt[x, 2]
    mtrail[m, 2] = pt[x, 3]
    mtrail[m + 1, 0] = y
    mtrail[m + 1, 1] = pt[y, 2]
    mtrail[m + 1, 2] = pt[y, 3]
    sc[MLEN] += 2
    pt[x, 2] = y
    pt[y, 2] = x
    pt[x, 3] = length
    pt[y, 3] = length
    f = _edge_between(x, y, pe, ends)
    if f >= 0 and st[f] < 0:
        _push(queue, sc, P + NC + f)
    return OK


@njit(cache=True)
def undo(tmark, mmark, umark, lat, rs):
    """Take back every change after the edge, mate and union trail marks."""
    st, pt, cl, uf, trail, mtrail, utrail, sc = rs.st, rs.pt, rs.cl, rs.uf, rs.trail, rs.mtrail, rs.utrail, rs.sc
    ends, ec = lat.ends, lat.ec
    while sc[TLEN] > tmark:
        sc[TLEN] -= 1
        e = trail[sc[TLEN]]
        val = st[e]
        st[e] = -1
        a = ends[e, 0]
        b = ends[e, 1]
        pt[a, 1] += 1
        pt[b, 1] += 1
        if val == 1:
            pt[a, 0] -= 1
            pt[b, 0] -= 1
            sc[NON] -= 1
        for k in range(2):
            c = ec[e, k]
            if c >= 0:
                cl[c, 1] += 1
                if val == 1:
                    sc[NBAD] += _bad(cl, c, cl[c, 0] - 1) - _bad(cl, c, cl[c, 0])
                    cl[c, 0] -= 1
    while sc[MLEN] > mmark:
        sc[MLEN] -= 1
        m = sc[MLEN]
        x = mtrail[m, 0]
        pt[x, 2] = mtrail[m, 1]
        pt[x, 3] = mtrail[m, 2]
    while sc[ULEN] > umark:
        sc[ULEN] -= 1
        b = utrail[sc[ULEN]]
        a = uf[b, 0]
        nb = uf[a, 3]
        uf[a, 3] = uf[b, 3]
        uf[b, 3] = nb
        uf[a, 2] -= uf[b, 2]
        uf[b, 0] = b
        uf[b, 1] = 0


@njit(cache=True)
def _propagate(lat, rs):
    """Run the point, cell, early-loop and parity rules until the queue is empty."""
    st, pt, cl, uf, queue, sc = rs.st, rs.pt, rs.cl, rs.uf, rs.queue, rs.sc
    ends, ec, ecd, pe, ce, P, NC, E = lat.ends, lat.ec, lat.ecd, lat.pe, lat.ce, lat.P, lat.NC, lat.E
    while sc[QH] < sc[QT]:
        item = queue[sc[QH]]
        sc[QH] += 1
        sc[CHECKS] += 1
        f = -1
        val = 0
        if item < P:                            # lattice point: degree 0 or 2
            p = item
            on = pt[p, 0]
            unk = pt[p, 1]
            if on > 2:
                return FAIL
            if unk == 0:
                if on == 1:
                    return FAIL
                continue
            if on == 2:
                for k in range(4):
                    g = pe[p, k]
                    if g >= 0 and st[g] < 0:
                        r = assign(g, 0, lat, rs)
                        if r != OK:
                            return r
                continue
            if unk != 1:
                continue
            val = 1 if on == 1 else 0
            for k in range(4):
                g = pe[p, k]
                if g >= 0 and st[g] < 0:
                    f = g
        elif item < P + NC:                     # clue cell
            c = item - P
            n = cl[c, 2]
            on = cl[c, 0]
            unk = cl[c, 1]
            if n < 0:
                n = cl[c, 3]                    # count that is excluded
                if n < 0 or unk > 1 or (on != n and on + unk != n):
                    continue
                if unk == 0:
                    return FAIL
                f = -1
                val = 1 if on == n else 0
                for k in range(4):
                    g = ce[c, k]
                    if st[g] < 0:
                        f = g
            elif on > n or on + unk < n:
                return FAIL
            elif unk == 0 or (on != n and on + unk != n):
                continue
            else:
                val = 0 if on == n else 1
                for k in range(4):
                    g = ce[c, k]
                    if st[g] < 0:
                        r = assign(g, val, lat, rs)
                        if r != OK:
                            return r
                continue
        elif item < P + NC + E:                 # an edge that would close a path into a loop
            g = item - P - NC
            if st[g] >= 0:
                continue
            a = ends[g, 0]
            b = ends[g, 1]
            if pt[a, 0] != 1 or pt[b, 0] != 1 or pt[a, 2] != b:
                continue
            ok = pt[a, 3] == sc[NON]           # the path holds every selected edge
            if ok:
                bad = sc[NBAD]
                for k in range(2):
                    c = ec[g, k]
                    if c >= 0:
                        bad += _bad(cl, c, cl[c, 0] + 1) - _bad(cl, c, cl[c, 0])
                ok = bad == 0
            if ok:
                continue
            f = g
            val = 0
        else:                                   # parity: both cells of the edge in one class
            g = item - P - NC - E
            if st[g] >= 0:
                continue
            r1, p1 = _find(uf, ecd[g, 0])
            r2, p2 = _find(uf, ecd[g, 1])
            if r1 != r2:
                continue
            f = g
            val = p1 ^ p2
        if f >= 0:
            r = assign(f, val, lat, rs)
            if r != OK:
                return r
    return OK


@njit(cache=True)
def _connect(lat, rs, seen, stack):
    """Global check: the selected edges and every clue that still needs edges must be joined by
    undecided-or-on edges.  Edges out of reach of the selected ones are set off.

    Returns FAIL, OK (nothing changed) or CHANGED (edges set; propagate again).  The walk counts the
    on and undecided edge ends it meets, so the whole board is scanned only when something lies out
    of reach.
    """
    st, pt, sc, trail = rs.st, rs.pt, rs.sc, rs.trail
    ends, pe, P, E = lat.ends, lat.pe, lat.P, lat.E
    if sc[NON] == 0:
        return OK
    start = -1
    for k in range(sc[TLEN] - 1, -1, -1):       # an end of the latest edge set on
        if st[trail[k]] == 1:
            start = ends[trail[k], 0]
            break
    sc[STAMP] += 1
    stamp = sc[STAMP]
    seen[start] = stamp
    top = 1
    stack[0] = start
    on_ends = 0
    open_ends = 0
    while top > 0:
        top -= 1
        p = stack[top]
        on_ends += pt[p, 0]
        open_ends += pt[p, 1]
        for k in range(4):
            f = pe[p, k]
            if f >= 0 and st[f] != 0:
                q = ends[f, 0] + ends[f, 1] - p
                if seen[q] != stamp:
                    seen[q] = stamp
                    stack[top] = q
                    top += 1
    if on_ends != 2 * sc[NON]:                  # an on edge out of reach
        return FAIL
    if open_ends == 2 * (E - sc[TLEN]):         # every undecided edge in reach
        return OK
    changed = OK
    for f in range(E):
        if st[f] < 0 and seen[ends[f, 0]] != stamp:
            r = assign(f, 0, lat, rs)
            if r != OK:
                return FAIL
            changed = CHANGED
    return changed


@njit(cache=True)
def fix(use_connect, lat, rs, seen, stack):
    """Propagate the queue (and the reach check when ``use_connect``) to a fixed point; empties the queue."""
    sc = rs.sc
    while True:
        sc[NODES] += 1
        r = _propagate(lat, rs)
        sc[QH] = 0
        sc[QT] = 0
        if r != OK or not use_connect:
            return r
        r = _connect(lat, rs, seen, stack)
        if r != CHANGED:
            sc[QH] = 0
            sc[QT] = 0
            return r


@njit(cache=True)
def _try(f, val, use_connect, lat, rs, seen, stack):
    """Set edge ``f`` to ``val`` and propagate; returns OK, FAIL or SOLVED (changes stay)."""
    r = assign(f, val, lat, rs)
    if r == OK:
        return fix(use_connect, lat, rs, seen, stack)
    rs.sc[QH] = 0
    rs.sc[QT] = 0
    return r


@njit(cache=True)
def _relate(f, e, k, use_connect, lat, rs, seen, stack):
    """Use ``f XOR e = k`` (edges; probing ``f`` proved it): the four cells beside the two edges XOR to
    ``k``; where they fall into two classes (the others pairing off), those two classes join, and the
    rules run.  Returns CHANGED (joined), OK (nothing to join), FAIL or SOLVED."""
    ecd, uf = lat.ecd, rs.uf
    a, pa = _find(uf, ecd[f, 0])
    b, pb = _find(uf, ecd[f, 1])
    c, pc = _find(uf, ecd[e, 0])
    d, pd = _find(uf, ecd[e, 1])
    rel = k ^ pa ^ pb ^ pc ^ pd
    if a == b:
        x, y = c, d
    elif a == c:
        x, y = b, d
    elif a == d:
        x, y = b, c
    elif b == c:
        x, y = a, d
    elif b == d:
        x, y = a, c
    elif c == d:
        x, y = a, b
    else:
        return OK                                   # four classes: no join says it
    if x == y:
        return OK if rel == 0 else FAIL
    _union(x, y, rel, lat, rs)
    r = fix(use_connect, lat, rs, seen, stack)
    return CHANGED if r == OK else r


@njit(cache=True)
def refute(cells, values, use_connect, lat, rs, seen, stack):
    """Whether the rules refute "cell ``cells[k]`` is inside exactly when ``values[k]`` is 1, for every k":
    the cells join the outside's class with those parities and the rules run; every change is then
    taken back.  True only on a contradiction, so no answer has all those values."""
    uf, sc, NC = rs.uf, rs.sc, lat.NC
    tm, mm, um = sc[TLEN], sc[MLEN], sc[ULEN]
    r = OK
    for k in range(cells.shape[0]):
        a, pa = _find(uf, cells[k])
        b, pb = _find(uf, NC)
        rel = values[k] ^ pa ^ pb
        if a == b:
            if rel != 0:
                r = FAIL
                break
        else:
            _union(a, b, rel, lat, rs)
    if r == OK:
        r = fix(use_connect, lat, rs, seen, stack)
    sc[QH] = 0
    sc[QT] = 0
    undo(tm, mm, um, lat, rs)
    return r == FAIL


@njit(cache=True, nogil=True)
def shorten(cells, values, use_connect, lat, rs, seen, stack):
    """Indices of a subset of "``cells`` take ``values``" that :func:`refute` still refutes, no single one
    of which can go (all of them when the whole is not refuted).  Blocks are dropped, halving the block
    each pass down to single cells, each block only while the rest is still refuted."""
    keep = np.arange(cells.shape[0])
    if not refute(cells, values, use_connect, lat, rs, seen, stack):
        return keep
    block = max(1, keep.shape[0] // 2)
    while True:
        i = 0
        while i < keep.shape[0]:
            trial = np.concatenate((keep[:i], keep[i + block:]))
            if trial.shape[0] and refute(cells[trial], values[trial], use_connect, lat, rs, seen, stack):
                keep = trial
            else:
                i += block
        if block == 1:
            return keep
        block = max(1, block // 2)


@njit(cache=True)
def probe(node_stop, use_connect, equivalences, lat, rs, sr):
    """Failed-literal probing with both-branch implications, over every undecided edge until nothing changes.

    Each edge is tried on and off (set, propagate, undo): a value that fails fixes the edge to the
    other one; an edge value that both tries imply is fixed too.  With ``equivalences``, an edge
    that the two tries set to opposite values is equal to the probed edge, or to its negation, in
    every answer: where the four cells beside the two edges reduce to two classes, those join
    (``_relate``), which is what merges a hard board's cells into few classes.  Returns (OK, FAIL or SOLVED,
    the edge whose two tries decided the most edges, for branching; -1 if none).  Before each
    edge (after the first one of this call) it returns PAUSE once ``sc[NODES]`` reaches
    ``node_stop``: the pass's position and the edges it fixed stay (slots ``P*`` of ``sc``), and
    the next call goes on from that edge, exactly as if it had not paused.
    """
    st, trail, sc = rs.st, rs.trail, rs.sc
    seen, stack, mk, mv, common, equiv = sr.seen, sr.stack, sr.mk, sr.mv, sr.common, sr.equiv
    E = lat.E
    if sc[PACTIVE] == 0:                       # a new probing round: its first pass
        sc[PACTIVE] = 1
        sc[PNEXT] = 0
        sc[PCHANGED] = 0
        sc[PBEST] = -1
        sc[PSCORE] = -1
    tried = False
    while True:
        f = sc[PNEXT]
        if f >= E:                              # a pass is over
            if sc[PCHANGED] == 0:
                sc[PACTIVE] = 0
                return OK, sc[PBEST]
            sc[PNEXT] = 0                      # something changed: pass again
            sc[PCHANGED] = 0
            sc[PBEST] = -1
            sc[PSCORE] = -1
            continue
        if st[f] >= 0:
            sc[PNEXT] = f + 1
            continue
        if tried and sc[NODES] >= node_stop:
            return PAUSE, -1
        tried = True
        sc[PNEXT] = f + 1
        tm = sc[TLEN]
        mm = sc[MLEN]
        um = sc[ULEN]
        r1 = _try(f, 1, use_connect, lat, rs, seen, stack)
        n1 = sc[TLEN] - tm
        sc[STAMP2] += 1
        stamp = sc[STAMP2]
        if r1 == OK:
            for k in range(tm, sc[TLEN]):
                e = trail[k]
                mk[e] = stamp
                mv[e] = st[e]
        undo(tm, mm, um, lat, rs)
        forced = 0 if r1 == FAIL else -1        # the value probing proved, if any
        n0 = 0
        ncommon = 0
        nequiv = 0
        if forced < 0:
            r0 = _try(f, 0, use_connect, lat, rs, seen, stack)
            n0 = sc[TLEN] - tm
            if r0 == OK and r1 == OK:
                for k in range(tm + 1, sc[TLEN]):
                    e = trail[k]
                    if mk[e] == stamp:
                        if mv[e] == st[e]:
                            common[ncommon] = e
                            common[E + ncommon] = st[e]
                            ncommon += 1
                        elif equivalences:              # e = f (on when f is) or e = not f
                            equiv[nequiv] = 2 * e + (1 - mv[e])
                            nequiv += 1
            undo(tm, mm, um, lat, rs)
            if r0 == FAIL:
                forced = 1
        if forced >= 0:
            ncommon = 1                          # decide ``f`` alone, as the values both tries imply
            common[0] = f
            common[E] = forced
            nequiv = 0
        joined = False
        for k in range(nequiv):
            if st[f] >= 0:
                break
            e = equiv[k] >> 1
            if st[e] < 0:
                r = _relate(f, e, equiv[k] & 1, use_connect, lat, rs, seen, stack)
                if r == CHANGED:
                    joined = True
                elif r != OK:
                    sc[PACTIVE] = 0
                    return r, -1
        if ncommon > 0:
            for k in range(ncommon):
                e = common[k]
                if st[e] < 0:
                    r = _try(e, common[E + k], use_connect, lat, rs, seen, stack)
                    if r != OK:
                        sc[PACTIVE] = 0
                        return r, -1
            joined = True
        if joined:
            sc[PCHANGED] = 1
            continue
        score = (n1 + 1) * (n0 + 1)
        if score > sc[PSCORE]:
            sc[PSCORE] = score
            sc[PBEST] = f
