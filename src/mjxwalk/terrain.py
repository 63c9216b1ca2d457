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
