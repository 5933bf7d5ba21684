"""A report's plotly figure drawn as a PNG image by matplotlib (the PDF report's figures): the same figure object
the HTML report and the pages show, read trace by trace, so that no figure is written twice.

Drawn: bars (vertical or horizontal, grouped or overlaid, of their own widths, with their outside texts), lines
and markers (steps, dashes, error bars, filled bands), heatmaps (their colour axis, their values in the cells),
subplots and a secondary axis, vertical lines with their labels, the subplots' titles, the legend. Offline: plotly's own image export needs a browser; matplotlib does not.
Text is never read as mathematics (a ``$`` in a column name stays a ``$``).
"""

from __future__ import annotations

import functools
import html
import io
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.ticker import FuncFormatter, PercentFormatter
from matplotlib.transforms import blended_transform_factory
from plotly import colors as plotly_colors
from plotly import graph_objects as go

_DRAWING = threading.Lock()  # matplotlib's settings are global: two sessions' reports drawn one after the other
WIDTH_INCHES = 7.2  # the PDF's text width
PLOTLY_WIDTH_PX = 1000  # the width plotly figures are drawn at on a page: their heights are read against it
DPI = 170
_TAGS = re.compile(r"<[^>]+>")
_DASHES = {"dash": "--", "dot": ":", "dashdot": "-."}
DRAWN = ("bar", "scatter", "scattergl", "heatmap")  # the trace types the report's figures use


def figure_png(figure: go.Figure) -> bytes:
    """``figure`` as PNG bytes, ``WIDTH_INCHES`` wide and as tall as its layout asks."""
    height_px = figure.layout.height or 450
    size = (WIDTH_INCHES, float(np.clip(WIDTH_INCHES * height_px / PLOTLY_WIDTH_PX, 2.4, 9.5)))
    with _DRAWING, rc_context({"text.parse_math": False, "font.family": "DejaVu Sans", "font.size": 8,
                     "axes.spines.top": False, "axes.spines.right": False}):
        drawing = Figure(figsize=size, dpi=DPI, layout=None)
        _Drawing(figure, drawing).draw()
        buffer = io.BytesIO()
        FigureCanvasAgg(drawing).print_png(buffer)
    return buffer.getvalue()


def plain(text: object) -> str:
    """Plotly's text as read: its HTML tags left out (``<br>``: a new line), its entities (``&lt;``, a user's ``<``
    escaped for plotly) as the characters they stand for, each the fonts cannot draw as its code point."""
    return drawable(html.unescape(_TAGS.sub("", re.sub(r"<br\s*/?>", "\n", str(text or "")))).strip())


@functools.cache
def _drawn_characters() -> frozenset[int]:
    """The code points the DejaVu fonts (matplotlib's, which the PDF writes with too) have a glyph for."""
    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    regular, bold = (FT2Font(str(folder / name)).get_charmap() for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"))
    return frozenset(code for code in regular if code in bold and code <= 0xFFFF)  # reportlab: the first plane


def drawable(text: str) -> str:
    """``text`` with each character the fonts have no glyph for (an emoji, a Chinese character) or that draws
    nothing (a control character) written as its code point, ``[U+1F600]``: shown, never dropped unseen."""
    drawn = _drawn_characters()
    return "".join(character if character in "\n\t" or (ord(character) in drawn and character.isprintable()
                                                         or character in "\u00a0\u202f") else
                   f"[U+{ord(character):04X}]" for character in text)


class _Drawing:
    """One plotly figure drawn on one matplotlib figure."""

    def __init__(self, source: go.Figure, drawing: Figure) -> None:
        self.source, self.drawing, self.layout = source, drawing, source.layout
        self.axes: dict[tuple[str, str], Axes] = {}
        self.decimal = (self.layout.separators or ".")[0]
        self.labelled: set[tuple[int, str]] = set()  # the axes ("x" or "y" of each) whose ticks are categories
        title = plain(self.layout.title.text) if self.layout.title else ""
        lines = title.count("\n") + 1 if title else 0
        height = drawing.get_figheight()
        self.legend_below = bool(self.layout.legend and self.layout.legend.y is not None and self.layout.legend.y < 0)
        # margins in inches: the title's lines and the legend above, the axis's labels (slanted: longer) below
        self.top = 1 - (0.1 + 0.2 * lines + (0 if self.legend_below else 0.3)) / height
        self.bottom = (1.15 if self._colour_axes() else 0.55 + (0.3 if self.legend_below else 0.0)) / height
        if title:
            drawing.text(0.01, 0.99, title, ha="left", va="top", fontsize=9.5, fontweight="bold")

    def draw(self) -> None:
        for trace in self.source.data:
            if trace.type not in DRAWN:
                raise ValueError(f"a {trace.type} trace is not drawn in the PDF report")
        bars: dict[tuple[str, str], list[Any]] = {}
        for trace in self.source.data:
            if trace.type == "bar":
                bars.setdefault(self._pair(trace), []).append(trace)
        for trace in self.source.data:
            axes = self._axes(self._pair(trace))
            if trace.type == "bar":
                group = bars[self._pair(trace)]
                self._bar(axes, trace, group.index(trace), len(group))
            elif trace.type in ("scatter", "scattergl"):
                self._scatter(axes, trace)
            else:
                self._heatmap(axes, trace)
        for pair, axes in self.axes.items():
            self._style(axes, *pair)
        self._shapes()
        self._annotations()
        self._legend()

    # The axes

    @staticmethod
    def _pair(trace: Any) -> tuple[str, str]:
        return trace.xaxis or "x", trace.yaxis or "y"

    def _axis(self, name: str) -> Any:
        return self.layout[f"{name[0]}axis{name[1:]}"]

    def _axes(self, pair: tuple[str, str]) -> Axes:
        if pair in self.axes:
            return self.axes[pair]
        x_axis, y_axis = self._axis(pair[0]), self._axis(pair[1])
        overlaying = y_axis.overlaying
        if overlaying:  # a secondary axis: the twin of the axes it overlays
            base = self._axes((pair[0], overlaying))
            axes = base.twinx()
            axes.spines["right"].set_visible(True)
        else:
            x0, x1 = x_axis.domain or (0, 1)
            y0, y1 = y_axis.domain or (0, 1)
            left, right = 0.1, 0.88 if self._colour_axes() else 0.97
            width, height = right - left, self.top - self.bottom
            axes = self.drawing.add_axes((left + x0 * width, self.bottom + y0 * height, (x1 - x0) * width * 0.96,
                                          (y1 - y0) * height))
        self.axes[pair] = axes
        return axes

    def _colour_axes(self) -> bool:
        return any(trace.type == "heatmap" for trace in self.source.data)

    def _style(self, axes: Axes, x_name: str, y_name: str) -> None:
        sides: list[tuple[Axis, Any, str]] = [(axes.yaxis, self._axis(y_name), "y")]
        if not self._axis(y_name).overlaying:  # a secondary axis shares its x axis: styled once, by its base
            sides.insert(0, (axes.xaxis, self._axis(x_name), "x"))
        for axis, setting, name in sides:
            title = setting.title.text if setting.title else None
            if title:
                (axes.set_xlabel if name == "x" else axes.set_ylabel)(plain(title))
            if setting.range is not None and setting.type != "date":
                (axes.set_xlim if name == "x" else axes.set_ylim)(*setting.range)
            if setting.autorange == "reversed":
                (axes.invert_xaxis if name == "x" else axes.invert_yaxis)()
            if setting.type == "log":
                (axes.set_xscale if name == "x" else axes.set_yscale)("log")
            if setting.tickvals is not None:
                axis.set_ticks(list(setting.tickvals), [plain(text) for text in setting.ticktext]
                               if setting.ticktext is not None else None)
            if setting.tickformat and setting.tickformat.endswith("%"):
                axis.set_major_formatter(PercentFormatter(1.0, decimals=0))
            elif self.decimal != "." and (id(axes), name) not in self.labelled and setting.tickvals is None and \
                    setting.type not in ("log", "date", "category"):  # numbers, not labels
                axis.set_major_formatter(FuncFormatter(  # the language's decimal symbol, as plotly's separators
                    lambda value, _position: f"{value:.6g}".replace(".", self.decimal)))
            if setting.showticklabels is False:
                axis.set_tick_params(labelleft=False, labelbottom=False)
            if setting.tickangle and name == "x":
                for label in axes.get_xticklabels():
                    label.set_rotation(-setting.tickangle)
                    label.set_horizontalalignment("right")
        axes.grid(True, color="#e4e7eb", linewidth=0.6)
        axes.set_axisbelow(True)

    # The traces

    def _bar(self, axes: Axes, trace: Any, position: int, count: int) -> None:
        horizontal = trace.orientation == "h"
        places, values = (trace.y, trace.x) if horizontal else (trace.x, trace.y)
        places, labels = _positions(places)
        values = np.asarray(values, dtype=float)
        grouped = self.layout.barmode in (None, "group") and count > 1  # plotly groups bars by default
        size = np.asarray(trace.width, dtype=float) if trace.width is not None else np.full(len(values), 0.8)
        if grouped:
            size = size / count
            places = places - 0.4 + size * (position + 0.5)
        colour = _colour(trace.marker.color, len(values))
        alpha = 0.6 if self.layout.barmode == "overlay" else trace.opacity
        drawn = (axes.barh(places, values, height=size, color=colour, alpha=alpha, label=_label(trace)) if horizontal
                 else axes.bar(places, values, width=size, color=colour, alpha=alpha, label=_label(trace)))
        if labels is not None:
            self.labelled.add((id(axes), "y" if horizontal else "x"))
            if horizontal:
                axes.set_yticks(np.arange(len(labels)), labels)
            else:  # many categories slanted, so that their labels never run into each other
                axes.set_xticks(np.arange(len(labels)), labels, rotation=45 if len(labels) > 8 else 0,
                                ha="right" if len(labels) > 8 else "center")
        if trace.text is not None and trace.textposition == "outside":
            texts = [trace.text] * len(values) if isinstance(trace.text, str) else list(trace.text)
            axes.bar_label(drawn, labels=[plain(text) for text in texts], padding=2, fontsize=7)

    def _scatter(self, axes: Axes, trace: Any) -> None:
        x, y = _values(trace.x), _values(trace.y)
        mode = trace.mode or "markers"
        colour = trace.line.color if trace.line and trace.line.color else (
            trace.marker.color if trace.marker and isinstance(trace.marker.color, str) else None)
        if trace.fill == "toself":
            axes.fill(x, y, color=trace.fillcolor or colour, alpha=trace.opacity or 0.3, linewidth=0)
            return
        label = _label(trace)
        if "lines" in mode:
            width = trace.line.width if trace.line and trace.line.width is not None else 2
            axes.plot(x, y, color=colour, linewidth=width * 0.6, alpha=trace.opacity,
                      linestyle=_DASHES.get(trace.line.dash, "-") if trace.line else "-",
                      drawstyle="steps-post" if trace.line and trace.line.shape == "hv" else "default",
                      marker="o" if "markers" in mode else None, markersize=2.5, label=label)
            label = None
        elif "markers" in mode:
            size = trace.marker.size if trace.marker and isinstance(trace.marker.size, int | float) else 6
            marker_colour = trace.marker.color if trace.marker else None
            axes.scatter(x, y, s=(size * 0.55) ** 2, c=_colour(marker_colour, len(x)) if marker_colour is not None
                         else None, alpha=trace.marker.opacity if trace.marker and trace.marker.opacity else None,
                         linewidths=0, label=label)
        error = trace.error_x
        if error is not None and error.array is not None:
            minus = error.arrayminus if error.arrayminus is not None else error.array
            axes.errorbar(x, y, xerr=[np.asarray(minus, dtype=float), np.asarray(error.array, dtype=float)],
                          fmt="none", ecolor=error.color or colour, elinewidth=1, capsize=2)

    def _heatmap(self, axes: Axes, trace: Any) -> None:
        z = np.asarray(trace.z, dtype=float)
        scale = self.layout[trace.coloraxis] if trace.coloraxis else None
        palette = (scale.colorscale if scale is not None and scale.colorscale else None) or trace.colorscale
        reverse = bool(scale.reversescale if scale is not None else trace.reversescale)
        low, high = (scale.cmin, scale.cmax) if scale is not None else (trace.zmin, trace.zmax)
        image = axes.imshow(z, cmap=_colour_map(palette, reverse), vmin=low, vmax=high, aspect="auto")
        labels = [plain(name) for name in trace.x] if trace.x is not None else None
        if labels:
            self.labelled.update({(id(axes), "x"), (id(axes), "y")})
            axes.set_xticks(np.arange(len(labels)), labels, rotation=45, ha="right", fontsize=6.5)
            axes.set_yticks(np.arange(len(labels)), [plain(name) for name in trace.y], fontsize=6.5)
        if trace.texttemplate:
            for (row, column), value in np.ndenumerate(z):
                if np.isfinite(value):
                    axes.text(column, row, f"{value:.2f}", ha="center", va="center", fontsize=5.5)
        axes.grid(False)
        if scale is not None and trace.coloraxis not in getattr(self, "_bars_drawn", set()):
            self._bars_drawn = {*getattr(self, "_bars_drawn", set()), trace.coloraxis}
            bar = scale.colorbar
            top = float(bar.y) if bar and bar.y is not None else 0.5
            length = float(bar.len) if bar and bar.len is not None else 0.9
            height = (self.top - self.bottom) * length
            where = self.drawing.add_axes((0.9, self.bottom + (self.top - self.bottom) * top - height / 2, 0.015,
                                           height))
            self.drawing.colorbar(image, cax=where).set_label(plain(bar.title.text) if bar and bar.title else "")

    # What is drawn over the axes

    def _shapes(self) -> None:
        for shape in self.layout.shapes or ():
            if shape.type != "line" or shape.x0 != shape.x1:
                continue
            axes = self._axes_of(shape.xref)
            axes.axvline(float(shape.x0), color=shape.line.color or "#9aa5b1",
                         linestyle=_DASHES.get(shape.line.dash, "-"), linewidth=1)

    def _annotations(self) -> None:
        for note in self.layout.annotations or ():
            text = plain(note.text)
            if not text:
                continue
            if note.xref == "paper" and note.yref == "paper":  # a subplot's title
                left, right = 0.1, 0.88 if self._colour_axes() else 0.97
                self.drawing.text(left + float(note.x) * (right - left), self.bottom + float(note.y) *
                                  (self.top - self.bottom) + 0.01, text, ha="center", va="bottom", fontsize=8)
                continue
            axes = self._axes_of(note.xref or "x")
            transform = blended_transform_factory(axes.transData, axes.transAxes)
            axes.text(float(note.x), 1.0, text, transform=transform, ha="left", va="bottom", fontsize=7,
                      color="#c0392b")

    def _axes_of(self, reference: str | None) -> Axes:
        name = (reference or "x").split()[0]
        return next((axes for (x, _y), axes in self.axes.items() if x == name), next(iter(self.axes.values())))

    def _legend(self) -> None:
        handles, labels = [], []
        for axes in self.axes.values():
            for handle, label in zip(*axes.get_legend_handles_labels(), strict=True):
                if label not in labels:
                    handles.append(handle)
                    labels.append(label)
        if len(labels) < 2 and not any(trace.showlegend for trace in self.source.data):
            return
        if not labels:
            return
        if self.legend_below:
            self.drawing.legend(handles, labels, loc="lower left", bbox_to_anchor=(0.08, 0.0), ncols=min(4, len(labels)),
                                frameon=False, fontsize=7)
        else:
            self.drawing.legend(handles, labels, loc="upper right", bbox_to_anchor=(0.99, self.top + 0.07),
                                ncols=min(4, len(labels)), frameon=False, fontsize=7)


def _label(trace: Any) -> str | None:
    """A trace's name in the legend (None: left out, as plotly leaves it out)."""
    return plain(trace.name) if trace.name and trace.showlegend is not False else None


def _values(values: Any) -> np.ndarray:
    """Plotly's coordinates as numbers (dates as they are); categories at 0, 1, 2..., as bars place them."""
    array = np.asarray(values if values is not None else [])
    if array.dtype.kind in "OUS":
        numbers = pd.to_numeric(pd.Series(array), errors="coerce")
        return numbers.to_numpy(float) if numbers.notna().all() else np.arange(len(array), dtype=float)
    return array


def _positions(places: Any) -> tuple[np.ndarray, list[str] | None]:
    """Bar positions: numbers as they are; categories at 0, 1, 2... with their labels."""
    array = np.asarray(places if places is not None else [])
    if array.dtype.kind in "iuf":
        return array.astype(float), None
    return np.arange(len(array), dtype=float), [plain(value) for value in array]


def _colour(colour: Any, count: int) -> Any:
    """A plotly colour (one, or one per point) as matplotlib reads it."""
    if colour is None:
        return None
    if isinstance(colour, str):
        return _one_colour(colour)
    colours = list(colour)
    return [_one_colour(str(value)) for value in colours] if len(colours) == count else _one_colour(str(colours[0]))


def _one_colour(colour: str) -> Any:
    if colour.startswith("rgb"):
        parts = [float(part) for part in re.findall(r"[\d.]+", colour)]
        return (*(part / 255 for part in parts[:3]), *(parts[3:4] or [1.0]))
    return colour


def _colour_map(palette: Any, reverse: bool) -> LinearSegmentedColormap:
    """A plotly colour scale (a name or its ``[position, colour]`` pairs) as a matplotlib colour map."""
    pairs: Sequence[Any] = plotly_colors.get_colorscale(palette) if isinstance(palette, str) else \
        palette or plotly_colors.get_colorscale("RdBu")
    stops = [(float(position), _one_colour(str(colour))) for position, colour in pairs]
    if reverse:
        stops = [(1 - position, colour) for position, colour in reversed(stops)]
    return LinearSegmentedColormap.from_list("plotly", stops)
