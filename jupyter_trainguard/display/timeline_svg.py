"""A hand-built inline SVG of a cell's memory timeline (no matplotlib import, renders in saved notebooks)."""

from __future__ import annotations

from typing import Any

from .bundle import escape

W, H, PAD_L, PAD_R, PAD_T, PAD_B = 560, 170, 64, 12, 14, 28


def _fmt(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def thin(points: list, limit: int) -> list:
    """At most `limit` points, in time order: each bucket keeps its highest allocation (peaks stay visible)."""
    if len(points) <= limit or limit < 2:
        return list(points)
    size = len(points) / limit
    out = [max(points[int(i * size):max(int((i + 1) * size), int(i * size) + 1)], key=lambda p: p[1])
           for i in range(limit)]
    out[-1] = points[-1] if points[-1][0] > out[-1][0] else out[-1]
    return out


def timeline_svg(memory: dict[str, Any], estimate_bytes: int | None = None, max_points: int = 120,
                 max_markers: int = 120) -> str:
    """Allocated (solid) and reserved (dashed) over time, optimizer steps as ticks, the peak as a line.

    Small on purpose (it is saved in the notebook): at most `max_points` samples and `max_markers` step ticks,
    the ticks drawn as one path."""
    points = thin(memory.get("timeline") or [], max_points)
    all_markers = memory.get("markers") or []
    n_markers = int(memory.get("markers_total") or len(all_markers))
    markers = all_markers[::max(1, -(-len(all_markers) // max_markers))] if max_markers else []
    if len(points) < 2:
        return ""
    t_max = max(p[0] for p in points) or 1e-9
    peak = int(memory.get("peak_allocated") or 0)
    y_top = max([p[2] for p in points] + [p[1] for p in points] + [peak, estimate_bytes or 0]) or 1
    y_bot = min(p[1] for p in points)
    y_bot = 0 if y_bot < 0.5 * y_top else y_bot * 0.98
    span = (y_top - y_bot) or 1

    def x(t: float) -> float:
        return PAD_L + (W - PAD_L - PAD_R) * t / t_max

    def y(v: float) -> float:
        return PAD_T + (H - PAD_T - PAD_B) * (1 - (v - y_bot) / span)

    alloc = " ".join(f"{x(p[0]):.1f},{y(p[1]):.1f}" for p in points)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
             'class="trainguard-timeline" role="img" aria-label="memory timeline" '
             'style="font:11px sans-serif;background:#fff">',
             f'<line x1="{PAD_L}" y1="{H - PAD_B}" x2="{W - PAD_R}" y2="{H - PAD_B}" stroke="#999"/>',
             f'<line x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{H - PAD_B}" stroke="#999"/>']
    if memory.get("is_device"):
        reserved = " ".join(f"{x(p[0]):.1f},{y(p[2]):.1f}" for p in points)
        parts.append(f'<polyline points="{reserved}" fill="none" stroke="#e08a2c" stroke-dasharray="4 3" '
                     'stroke-width="1.5"><title>reserved</title></polyline>')
    parts.append(f'<polyline points="{alloc}" fill="none" stroke="#2c6fbb" stroke-width="1.8">'
                 '<title>allocated</title></polyline>')
    if markers:
        ticks = "".join(f"M{x(m[0]):.1f} {H - PAD_B}v-5" for m in markers)
        parts.append(f'<path d="{ticks}" stroke="#555"><title>optimizer steps</title></path>')
    if peak:
        parts.append(f'<line x1="{PAD_L}" y1="{y(peak):.1f}" x2="{W - PAD_R}" y2="{y(peak):.1f}" stroke="#c0392b" '
                     f'stroke-dasharray="2 2"/><text x="{W - PAD_R}" y="{y(peak) - 3:.1f}" text-anchor="end" '
                     f'fill="#c0392b">peak {escape(_fmt(peak))}</text>')
    if estimate_bytes:
        parts.append(f'<line x1="{PAD_L}" y1="{y(estimate_bytes):.1f}" x2="{W - PAD_R}" y2="{y(estimate_bytes):.1f}" '
                     f'stroke="#27ae60" stroke-dasharray="6 3"/><text x="{PAD_L + 4}" y="{y(estimate_bytes) - 3:.1f}" '
                     f'fill="#27ae60">estimate {escape(_fmt(estimate_bytes))}</text>')
    parts.append(f'<text x="{PAD_L - 4}" y="{PAD_T + 4}" text-anchor="end">{escape(_fmt(y_top))}</text>')
    parts.append(f'<text x="{PAD_L - 4}" y="{H - PAD_B}" text-anchor="end">{escape(_fmt(y_bot))}</text>')
    parts.append(f'<text x="{W - PAD_R}" y="{H - 8}" text-anchor="end">{t_max:.2f} s</text>')
    parts.append(f'<text x="{PAD_L}" y="{H - 8}">0 s · {n_markers} optimizer steps</text>')
    parts.append("</svg>")
    return "".join(parts)
