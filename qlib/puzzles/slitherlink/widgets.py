"""Interactive views for the book's Slitherlink chapters, and their static twins.

* :func:`iteration_figure` draws every iteration of a
  :class:`~qlib.puzzles.slitherlink.SlitherlinkResult` as small multiples
  (plain matplotlib: what a reader without a kernel sees);
* :func:`iteration_table` lists the iterations as a table (HTML in a notebook), and
  :func:`iteration_seconds` their timings apart (they vary from run to run);
* :func:`iteration_explorer` shows the same states one at a time under a slider;
* :func:`board_editor` lets a reader type a board and solve it.

The widgets draw into an :class:`ipywidgets.Image` (PNG bytes) and report in an
:class:`ipywidgets.HTML`, so their outputs are plain values that tests can read
without a running kernel.  ipywidgets is imported inside the functions:
``import qlib`` does not need it.
"""

from __future__ import annotations

import html
import io

import numpy as np

from ..loops import DegreeError, split_loops
from .board import SlitherlinkError, parse_text
from .display import draw
from .solve import solve as solve_board

__all__ = ["Table", "iteration_title", "draw_iteration", "iteration_figure", "iteration_table", "iteration_seconds",
           "iteration_explorer", "board_editor", "figure_png"]


def _iteration(result, k: int) -> dict:
    if not result.iterations:
        raise ValueError("the result has no iterations to show")
    n = len(result.iterations)
    if not 1 <= k <= n:
        raise ValueError(f"iteration {k} is outside 1..{n}")
    return result.iterations[k - 1]


def _accepted(result, it: dict) -> bool:
    """Whether ``it`` is the iteration whose state holds the accepted loop."""
    return result.solved and it is result.iterations[-1]


def iteration_title(result, k: int) -> str:
    """Two short lines for iteration ``k`` (from 1): its energy and loop lengths."""
    it = _iteration(result, k)
    head = f"iteration {k}: energy {it['energy']:g}"
    if it["loops"] is None:
        return head + "\nnot a set of loops"
    lengths = " ".join(map(str, it["loops"])) or "none"
    tail = f"loops {lengths}"
    if _accepted(result, it):
        tail += f" ({len(result.loop)} accepted)"
    return head + "\n" + tail


def draw_iteration(result, k: int, ax=None, *, linewidth: float = 2.5):
    """Draw the state of iteration ``k`` (from 1) with each loop in its own colour.

    The colours follow matplotlib's "tab10" cycle in the order of the loop
    lengths in the title (blue, orange, green, red, ...); a state of one loop
    is drawn black, as :func:`qlib.puzzles.slitherlink.draw` does.  Returns the Axes.
    """
    it = _iteration(result, k)
    board = result.board
    g = board.grid
    mask = np.asarray(it["state"], dtype=np.uint8)
    try:
        loops = split_loops(mask, g.endpoints) if mask.any() else None
    except DegreeError:
        loops = None
    h, v = g.to_hv(mask)
    ax = draw(board, h, v, ax=ax, loops=loops, linewidth=linewidth)
    ax.set_title(iteration_title(result, k), fontsize=9)
    return ax


def iteration_figure(result, columns: int = 4, *, size: float = 2.6):
    """Small multiples: one panel per iteration of ``result``, loops coloured.

    Returns the matplotlib Figure (created with pyplot, so a notebook shows it
    on ``plt.show()``).
    """
    import matplotlib.pyplot as plt

    n = len(result.iterations)
    if n == 0:
        raise ValueError("the result has no iterations to show")
    if not isinstance(columns, int) or columns < 1:
        raise ValueError(f"columns must be a positive integer, got {columns!r}")
    cols = min(columns, n)
    rows = -(-n // cols)
    board = result.board
    aspect = (board.rows + 1.5) / (board.cols + 1)
    fig, axes = plt.subplots(rows, cols, figsize=(size * cols, size * aspect * rows + 0.3 * rows), squeeze=False)
    for k, ax in enumerate(axes.ravel(), start=1):
        if k <= n:
            draw_iteration(result, k, ax=ax)
        else:
            ax.axis("off")
    fig.tight_layout()
    return fig


class Table:
    """A small table that a notebook shows as HTML (``_repr_html_``); ``data``
    holds the same table as Markdown text, ``rows`` the cells as strings.
    ``align`` gives "left" or "right" per column (default: all right)."""

    def __init__(self, header: list[str], rows: list[list[str]], align: list[str] | None = None):
        self.header, self.rows = list(header), [list(r) for r in rows]
        self.align = list(align) if align is not None else ["right"] * len(self.header)
        if len(self.align) != len(self.header) or set(self.align) - {"left", "right"}:
            raise ValueError("align needs one 'left' or 'right' per column")

    @property
    def data(self) -> str:
        """The table as a Markdown pipe table (header, alignment rule, rows)."""
        rule = "|" + "".join("---:|" if a == "right" else ":---|" for a in self.align)
        lines = ["| " + " | ".join(self.header) + " |", rule]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.data

    def _repr_html_(self) -> str:
        def row(tag, cells):
            return "<tr>" + "".join(f"<{tag} style='text-align:{a}; padding:0.2em 0.8em'>{html.escape(c)}</{tag}>"
                                    for a, c in zip(self.align, cells)) + "</tr>"

        body = "".join(row("td", r) for r in self.rows)
        return f"<table><thead>{row('th', self.header)}</thead><tbody>{body}</tbody></table>"

    def __repr__(self) -> str:
        return self.data


def iteration_table(result, *, seconds: bool = True) -> Table:
    """The per-iteration log of ``result`` as a :class:`Table` (a notebook shows
    it as an HTML table; ``.data`` is the Markdown text).

    Columns: iteration, energy, loop lengths, loops forbidden after it, and
    (with ``seconds``) the seconds the iteration took.
    """
    head = ["iteration", "energy", "loop lengths", "forbidden"] + (["seconds"] if seconds else [])
    rows = []
    for it in result.iterations:
        loops = "-" if it["loops"] is None else " ".join(map(str, it["loops"])) or "none"
        if _accepted(result, it):
            loops += f" ({len(result.loop)} accepted)"
        row = [str(it["iteration"]), f"{it['energy']:g}", loops, str(it.get("forbidden", 0))]
        if seconds:
            row.append(f"{it['seconds']:.2f}")
        rows.append(row)
    align = ["right", "right", "left", "right"] + (["right"] if seconds else [])
    return Table(head, rows, align)


def iteration_seconds(result) -> Table:
    """Seconds of each iteration of ``result``, and of the whole solve, as a :class:`Table`.

    The timings apart from :func:`iteration_table` (``seconds=False``), whose
    entries a seeded run reproduces: these vary from run to run.  Columns:
    iteration, seconds (the whole iteration), solver seconds (``qlib.solve``
    alone); the last row is the total.
    """
    if not result.iterations:
        raise ValueError("the result has no iterations to show")

    def cell(value):
        return "-" if value is None else f"{value:.3f}"

    rows = [[str(it["iteration"]), cell(it["seconds"]), cell(it.get("solver_seconds"))]
            for it in result.iterations]
    rows.append(["total", cell(result.seconds), ""])
    return Table(["iteration", "seconds", "solver seconds"], rows)


def figure_png(draw, *, figsize=(4.5, 4.5), dpi: int = 80) -> bytes:
    """PNG bytes of a figure drawn by ``draw(ax)``, without pyplot (nothing is shown)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    draw(fig.add_subplot())
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _board_figsize(board) -> tuple[float, float]:
    return 0.42 * board.cols + 1.2, 0.42 * board.rows + 1.5


def iteration_explorer(result):
    """A slider over the iterations of ``result`` (a SlitherlinkResult, e.g. from
    ``method="outer"``) that redraws each iteration's state, loops coloured,
    with its energy and loop lengths.  Returns the widget (a VBox)."""
    import ipywidgets as widgets

    n = len(result.iterations)
    if n == 0:
        raise ValueError("the result has no iterations to show")
    slider = widgets.IntSlider(value=1, min=1, max=n, step=1, description="iteration",
                               continuous_update=False, disabled=n == 1)
    info = widgets.HTML()
    image = widgets.Image(format="png", layout=widgets.Layout(width="420px"))
    figsize = _board_figsize(result.board)

    def show(k: int) -> None:
        it = result.iterations[k - 1]
        loops = "-" if it["loops"] is None else " ".join(map(str, it["loops"])) or "none"
        if _accepted(result, it):
            verdict = f"the loop of {len(result.loop)} edges satisfies every clue on its own: the answer"
        elif it.get("forbidden"):
            verdict = f"no loop satisfies every clue alone: {it['forbidden']} loop(s) forbidden"
        else:
            verdict = "not accepted"
        info.value = (f"<b>iteration {k} of {n}</b>: energy {it['energy']:g}, loop lengths {loops}"
                      f"<br>{html.escape(verdict)}")
        image.value = figure_png(lambda ax: draw_iteration(result, k, ax=ax), figsize=figsize)

    slider.observe(lambda change: show(change["new"]), names="value")
    show(1)
    box = widgets.VBox([slider, info, image])
    box.slider, box.info, box.image = slider, info, image  # handles for code and tests
    return box


def board_editor(text: str | None = None, *, seed: int = 1, time_limit: float = 10.0):
    """Type a Slitherlink board and solve it.

    A Textarea (rows of '.' and 0-3, or a lattice drawing; see
    :func:`qlib.puzzles.slitherlink.parse`), seed and time-limit fields and a
    Solve button.  Solve parses the text (parse errors are shown with their
    line and column), runs :func:`qlib.puzzles.slitherlink.solve` and draws the
    answer, or says "no solution found".  ``text`` defaults to the book's
    10x10 puzzle.  Returns the widget (a VBox).
    """
    import ipywidgets as widgets

    from ... import data_path

    if text is None:
        text = data_path("slitherlink-10x10-qbpp.txt").read_text()
    area = widgets.Textarea(value=text, placeholder="one row per line: '.' or a clue 0-3",
                            layout=widgets.Layout(width="260px", height="220px"))
    seed_box = widgets.BoundedIntText(value=seed, min=0, max=2**31 - 1, description="seed",
                                      layout=widgets.Layout(width="200px"))
    limit_box = widgets.BoundedFloatText(value=time_limit, min=0.1, max=600.0, step=1.0,
                                         description="time limit (s)", style={"description_width": "initial"},
                                         layout=widgets.Layout(width="200px"))
    button = widgets.Button(description="Solve", button_style="primary", icon="play")
    message = widgets.HTML()
    image = widgets.Image(format="png", layout=widgets.Layout(width="420px"))

    def solve(_=None) -> None:
        image.value = b""
        try:
            board = parse_text(area.value)
        except (SlitherlinkError, ValueError) as err:
            message.value = f"<b>Cannot read the board.</b> {html.escape(str(err))}"
            return
        button.disabled = True
        message.value = f"Solving the {board.rows} x {board.cols} board ..."
        try:
            result = solve_board(board, seed=int(seed_box.value), time_limit=float(limit_box.value))
        except Exception as err:  # a widget callback must report, not raise into the void
            message.value = f"<b>The solver failed.</b> {html.escape(f'{type(err).__name__}: {err}')}"
            return
        finally:
            button.disabled = False
        figsize = _board_figsize(board)
        if result.solved:
            message.value = (f"<b>Solved</b>: one loop of {len(result.loop)} edges "
                             f"({result.seconds:.2f} s, seed {result.seed}).")
            image.value = figure_png(lambda ax: draw(board, result.h, result.v, ax=ax), figsize=figsize)
        else:
            reason = {"time_limit": f"within the time limit of {float(limit_box.value):g} s",
                      "max_iterations": "within the iteration limit"}.get(result.stop_reason, "")
            message.value = f"<b>No solution found</b> {reason} ({html.escape(result.stop_reason)})."
            image.value = figure_png(lambda ax: draw(board, ax=ax), figsize=figsize)

    button.on_click(solve)
    box = widgets.VBox([widgets.HBox([area, widgets.VBox([seed_box, limit_box, button])]), message, image])
    box.text, box.seed, box.time_limit, box.button, box.message, box.image = (
        area, seed_box, limit_box, button, message, image)  # handles for code and tests
    return box
