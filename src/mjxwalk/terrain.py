"""Terrain heightfields generated in code (no image files), and height look-ups.

MuJoCo stores a heightfield as values in [0, 1] scaled by `hfield_size[2]`; rows run along
y and columns along x, both spanning [-size, size].
"""

from __future__ import annotations

import numpy as np


def rough_heights(nrow: int, ncol: int, seed: int = 0, feature_cells: float = 6.0) -> np.ndarray:
    """Smooth random bumps, normalised to [0, 1], shape (nrow, ncol).

    White noise low-passed in Fourier space: bumps about `feature_cells` cells across, so a
    foot meets gentle slopes rather than spikes that no servo robot could step on.
    """
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((nrow, ncol))
    fy = np.fft.fftfreq(nrow)[:, None]
    fx = np.fft.fftfreq(ncol)[None, :]
    cutoff = 1.0 / feature_cells
    spectrum = np.fft.fft2(noise) * np.exp(-((fx**2 + fy**2) / (2 * cutoff**2)))
    heights = np.real(np.fft.ifft2(spectrum))
    heights -= heights.min()
    peak = heights.max()
    return heights / peak if peak > 0 else heights


TILE_TYPES = ("rough", "slope", "steps")
"""Terrain kinds, one per column of tiles (repeated across the field)."""


def tiles(levels: int, columns: int, tile_size: float = 2.0, cell: float = 0.05, seed: int = 0,
          max_bump: float = 0.05, max_slope: float = 0.2, max_step: float = 0.05):
    """A field of square tiles: rows are difficulty levels (0 easiest), columns cycle through
    rough bumps, pyramid slopes and pyramid steps. Returns heights in metres, (nrow, ncol),
    rows along y and columns along x, the field centred on the origin.

    Difficulty d = level / (levels - 1) sets the bump height (0.2..1 x max_bump), the slope
    (d x max_slope rad) and the step height (0.2..1 x max_step). Robots spawn at tile centres,
    on the flat top of a pyramid.
    """
    n = int(round(tile_size / cell))
    rng = np.random.default_rng(seed)
    u = (np.arange(n) + 0.5) * cell - tile_size / 2
    edge = tile_size / 2 - np.maximum(np.abs(u)[None, :], np.abs(u)[:, None])  # 0 at the border
    top = 0.3  # flat spawn platform half-width on pyramids, m
    field = np.zeros((levels * n, columns * n))
    for level in range(levels):
        d = level / max(levels - 1, 1)
        for col in range(columns):
            kind = TILE_TYPES[col % len(TILE_TYPES)]
            if kind == "rough":
                bumps = rough_heights(n, n, seed=int(rng.integers(1 << 31)), feature_cells=6)
                tile = bumps * max_bump * (0.2 + 0.8 * d)
            elif kind == "slope":
                tile = np.tan(d * max_slope) * np.minimum(edge, tile_size / 2 - top)
            else:
                height = max_step * (0.2 + 0.8 * d)
                tile = height * np.floor(np.minimum(edge, tile_size / 2 - top) / 0.25)
            field[level * n:(level + 1) * n, col * n:(col + 1) * n] = tile
    return field


def tile_center(level, column, levels: int, columns: int, tile_size: float = 2.0):
    """World (x, y) of a tile's centre in the field made by `tiles`."""
    x = (column + 0.5) * tile_size - columns * tile_size / 2
    y = (level + 0.5) * tile_size - levels * tile_size / 2
    return x, y


def height_at(data, size, x, y, xp=np):
    """Bilinear terrain height at world (x, y): `data` (nrow, ncol) in [0, 1], `size` hfield_size.

    Generic over the array library (`xp=np` or `xp=jax.numpy`); points off the field clamp to
    its edge.
    """
    nrow, ncol = data.shape
    u = xp.clip((x / size[0] + 1.0) * 0.5 * (ncol - 1), 0.0, ncol - 1.0)
    v = xp.clip((y / size[1] + 1.0) * 0.5 * (nrow - 1), 0.0, nrow - 1.0)
    c0 = xp.clip(xp.floor(u).astype(int), 0, ncol - 2)
    r0 = xp.clip(xp.floor(v).astype(int), 0, nrow - 2)
    fu, fv = u - c0, v - r0
    top = data[r0, c0] * (1 - fu) + data[r0, c0 + 1] * fu
    bottom = data[r0 + 1, c0] * (1 - fu) + data[r0 + 1, c0 + 1] * fu
    return (top * (1 - fv) + bottom * fv) * size[2]
