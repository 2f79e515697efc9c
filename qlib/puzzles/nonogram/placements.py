"""One line's placements, the dynamic programme under :mod:`.lines`' line solving.

A placement of a line's clue is a path through states ``(i, k)``: the first ``i``
cells are settled with ``k`` blocks placed and cell ``i`` may start a block.
:func:`reach` marks the states some full placement passes (forward and backward
passes inside each block's band), :func:`line_shares` counts the placements
through each cell, and :func:`block_ranges` reads every block's first and last
start.  The kernels take a line's clues (:class:`.lines.Clues`) and the scratch of
a :class:`.lines.Work`; they trust their input.

The hot helpers take the arrays themselves, not the named tuple: reading an array
out of a named tuple inside a loop costs a reference count each time, which was
ten times the work of a line solve.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def gather(c, wk, l):
    """Copy line ``l`` into ``wk.cells``; returns (length, first cell, step, first block, blocks)."""
    h, w = c.height, c.width
    if l < h:
        n, base, step = w, l * w, 1
    else:
        n, base, step = h, l - h, w
    b0 = c.starts[l]
    m = c.starts[l + 1] - b0
    grid, cells, wpre = wk.grid, wk.cells, wk.wpre
    wpre[0] = 0
    for p in range(n):
        v = grid[base + p * step]
        cells[p] = v
        wpre[p + 1] = wpre[p] + (1 if v == 0 else 0)
    return n, base, step, b0, m


@njit(cache=True, inline="always")
def bands(c, wk, n, b0, m):
    """Where state ``(i, k)`` can lie on some full placement: ``band_lo[k] <= i <= band_hi[k]``
    (the first ``k`` blocks packed left, the others packed right)."""
    lo, hi, lengths = wk.band_lo, wk.band_hi, c.lengths
    pos = 0
    for k in range(m + 1):
        lo[k] = pos if pos <= n else n
        if k < m:
            pos += lengths[b0 + k] + 1
    hi[m] = n
    rest = 0
    for k in range(m - 1, -1, -1):
        rest += lengths[b0 + k]
        hi[k] = n - (rest + m - k - 1)


@njit(cache=True, inline="always")
def next_state(blocks, wpre, cells, band_hi, n, k, i):
    """The state block ``k`` placed at ``i`` leads to, or -1 if the cells or the next band forbid it."""
    e = i + blocks[k]
    if e <= n and wpre[e] == wpre[i] and (e == n or cells[e] != 1):
        nx = e + 1 if e < n else n
        if nx <= band_hi[k + 1]:
            return nx
    return -1


@njit(cache=True, inline="always")
def lands(blocks, wpre, cells, band_hi, bw, n, k, i):
    """Block ``k`` placed at ``i`` leads to a state from which the line can still be completed."""
    nx = next_state(blocks, wpre, cells, band_hi, n, k, i)
    return nx >= 0 and bw[(k + 1) * (n + 1) + nx] != 0


@njit(cache=True, inline="always")
def reach(c, wk, n, b0, m):
    """Forward and backward reachability of line states ``fw/bw[k * (n + 1) + i]`` inside
    the bands; False when no placement fits."""
    cells, fw, bw, lo, hi, wpre = wk.cells, wk.fw, wk.bw, wk.band_lo, wk.band_hi, wk.wpre
    blocks = c.lengths[b0:b0 + m]
    bands(c, wk, n, b0, m)
    N1 = n + 1
    for k in range(m + 1):
        for i in range(lo[k], hi[k] + 1):
            fw[k * N1 + i] = 0
            bw[k * N1 + i] = 0
    fw[0] = 1
    for k in range(m + 1):
        for i in range(lo[k], hi[k] + 1):
            s = k * N1 + i
            if fw[s] == 0:
                continue
            if i < hi[k] and cells[i] != 1:
                fw[s + 1] = 1
            if k < m:
                nx = next_state(blocks, wpre, cells, hi, n, k, i)
                if nx >= 0:
                    fw[(k + 1) * N1 + nx] = 1
    if fw[m * N1 + n] == 0:
        return False
    bw[m * N1 + n] = 1
    for k in range(m, -1, -1):
        for i in range(hi[k], lo[k] - 1, -1):
            s = k * N1 + i
            if bw[s]:
                continue
            if i < hi[k] and cells[i] != 1 and bw[s + 1]:
                bw[s] = 1
            elif k < m and lands(blocks, wpre, cells, hi, bw, n, k, i):
                bw[s] = 1
    return True


@njit(cache=True)
def line_shares(c, wk, l, out):
    """For every undecided cell of line ``l``: the share of the line's placements that make it black."""
    n, base, step, b0, m = gather(c, wk, l)
    cells, wpre, fwc, bwc, cover, lengths = wk.cells, wk.wpre, wk.fwc, wk.bwc, wk.coverf, c.lengths
    M = m + 1
    for s in range((n + 1) * M):
        fwc[s] = 0.0
        bwc[s] = 0.0
    fwc[0] = 1.0
    for i in range(n + 1):
        for k in range(M):
            f = fwc[i * M + k]
            if f == 0.0:
                continue
            if i < n and cells[i] != 1:
                fwc[(i + 1) * M + k] += f
            if k < m:
                e = i + lengths[b0 + k]
                if e <= n and wpre[e] == wpre[i] and (e == n or cells[e] != 1):
                    nx = e + 1 if e < n else n
                    fwc[nx * M + k + 1] += f
    total = fwc[n * M + m]
    bwc[n * M + m] = 1.0
    for i in range(n, -1, -1):
        for k in range(m, -1, -1):
            s = i * M + k
            if i == n and k == m:
                continue
            b = 0.0
            if i < n and cells[i] != 1:
                b += bwc[s + M]
            if k < m:
                e = i + lengths[b0 + k]
                if e <= n and wpre[e] == wpre[i] and (e == n or cells[e] != 1):
                    nx = e + 1 if e < n else n
                    b += bwc[nx * M + k + 1]
            bwc[s] = b
    for p in range(n + 1):
        cover[p] = 0.0
    for i in range(n + 1):
        for k in range(m):
            f = fwc[i * M + k]
            if f == 0.0:
                continue
            e = i + lengths[b0 + k]
            if e <= n and wpre[e] == wpre[i] and (e == n or cells[e] != 1):
                nx = e + 1 if e < n else n
                ways = f * bwc[nx * M + k + 1]
                cover[i] += ways
                cover[e] -= ways
    usable = total > 0.0 and total < np.inf
    depth = 0.0
    for p in range(n):
        depth += cover[p]
        out[base + p * step] = depth / total if usable else 0.5


@njit(cache=True)
def block_ranges(c, grid, wk, lo, hi):
    """The first and last start every block can take given the decided cells of ``grid``
    (``lo``/``hi``, indexed like ``c.lengths``); returns -1, or the first line that has no placement."""
    for cell in range(grid.size):
        wk.grid[cell] = grid[cell]
    for l in range(c.starts.size - 1):
        n, base, step, b0, m = gather(c, wk, l)
        if not reach(c, wk, n, b0, m):
            return l
        N1 = n + 1
        blocks, band_lo, band_hi, fw = c.lengths[b0:b0 + m], wk.band_lo, wk.band_hi, wk.fw
        for k in range(m):
            lo[b0 + k] = n
            hi[b0 + k] = -1
            for i in range(band_lo[k], band_hi[k] + 1):
                if fw[k * N1 + i] == 0:
                    continue
                if lands(blocks, wk.wpre, wk.cells, band_hi, wk.bw, n, k, i):
                    lo[b0 + k] = min(lo[b0 + k], i)
                    hi[b0 + k] = max(hi[b0 + k], i)
    return -1
