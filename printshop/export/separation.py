"""RGB colours separated into CMYK inks for a press: total ink within a limit, greys in black.

Each colour is matched in CIELAB against the press's printing condition (Ghostscript's SWOP
profile, the condition DriveThruCards names): among ink mixes whose total is at most the
limit, the one nearest the colour (CIE76 colour difference), with a small preference for
black over an equal grey of cyan, magenta and yellow (grey component replacement). A grey
(R = G = B) is black ink alone, and so is text that black ink alone prints about as dark
(near-black text, such as a very dark violet or brown). A profile conversion alone reaches about 300%
total ink (docs/design.md, "Exports", has the measurement).

The search: a grid of mixes every STEP % is converted once; the nearest is refined in 1%
steps. Results are cached per colour, so a deck's few hundred colours cost well under a
second.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from pathlib import Path

import numpy as np

STEP = 5                    # % between the grid's mixes
REFINE = 3                  # % each way searched around the grid's best, in 1% steps
GCR_WEIGHT = 1.0            # CIE76 units charged per 100% of the grey CMY holds instead of K
TEXT_BLACK_MARGIN = 5.0     # text at most this much lighter (L*) than solid black ink ...
TEXT_BLACK_CHROMA = 20.0    # ... and at most this colourful is black text: K only
PROFILE_NAMES = ("default_cmyk.icc",)
PROFILE_DIRS = ("/usr/share/color/icc/ghostscript", "/usr/share/ghostscript/*/iccprofiles")

Ink = tuple[float, float, float, float]      # C, M, Y, K as fractions 0..1


def profile_path() -> Path | None:
    """Return the CMYK profile of the printing condition (Ghostscript's SWOP), if installed."""
    for folder in PROFILE_DIRS:
        for name in PROFILE_NAMES:
            found = sorted(Path("/").glob(folder.lstrip("/") + "/" + name))
            if found:
                return found[-1]
    return None


@lru_cache(maxsize=1)
def _transforms():
    from PIL import ImageCms

    path = profile_path()
    if path is None:
        raise FileNotFoundError("no CMYK profile (Ghostscript's iccprofiles) is installed")
    lab = ImageCms.createProfile("LAB", 6500)
    srgb = ImageCms.createProfile("sRGB")
    cmyk = ImageCms.getOpenProfile(str(path))
    intent = ImageCms.Intent.RELATIVE_COLORIMETRIC
    return (ImageCms.buildTransform(srgb, lab, "RGB", "LAB", intent),
            ImageCms.buildTransform(cmyk, lab, "CMYK", "LAB", intent),
            ImageCms.buildTransform(srgb, cmyk, "RGB", "CMYK", intent))


def _lab_of(image, transform) -> np.ndarray:
    from PIL import ImageCms

    out = np.asarray(ImageCms.applyTransform(image, transform), dtype=np.float64)
    out = out.reshape(-1, out.shape[-1])[:, :3].copy()
    out[:, 0] *= 100.0 / 255.0
    out[:, 1:] = np.where(out[:, 1:] > 127, out[:, 1:] - 256, out[:, 1:])   # signed a*, b*
    return out


def lab_of_inks(inks: np.ndarray) -> np.ndarray:
    """Return the CIELAB colour each ink mix (rows of C, M, Y, K in %) prints as."""
    from PIL import Image

    pixels = np.clip(np.rint(inks * 2.55), 0, 255).astype(np.uint8).reshape(1, -1, 4)
    return _lab_of(Image.fromarray(pixels, "CMYK"), _transforms()[1])


def lab_of_rgb(rgb: tuple[float, float, float]) -> np.ndarray:
    """Return the CIELAB colour of an sRGB colour (components 0..1)."""
    from PIL import Image

    pixel = np.array([[[round(v * 255) for v in rgb]]], dtype=np.uint8)
    return _lab_of(Image.fromarray(pixel, "RGB"), _transforms()[0])[0]


@lru_cache(maxsize=4)
def _grid(limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    levels = np.arange(0, 101, STEP, dtype=np.float64)
    inks = np.stack(np.meshgrid(levels, levels, levels, levels, indexing="ij"), -1)
    inks = inks.reshape(-1, 4)
    inks = inks[inks.sum(axis=1) <= limit]
    return inks, lab_of_inks(inks), _penalty(inks)


def _penalty(inks: np.ndarray) -> np.ndarray:
    return GCR_WEIGHT * np.minimum(np.minimum(inks[:, 0], inks[:, 1]), inks[:, 2]) / 100.0


def _cost(labs: np.ndarray, penalty: np.ndarray, target: np.ndarray) -> np.ndarray:
    d = labs - target
    return np.sqrt(d[:, 0] ** 2 + d[:, 1] ** 2 + d[:, 2] ** 2) + penalty


@lru_cache(maxsize=1)
def _solid_black_l() -> float:
    return float(lab_of_inks(np.array([[0.0, 0.0, 0.0, 100.0]]))[0, 0])


def _black_only(target_l: float) -> Ink:
    ks = np.arange(0, 101, dtype=np.float64)
    inks = np.stack([np.zeros_like(ks)] * 3 + [ks], axis=1)
    best = int(np.abs(lab_of_inks(inks)[:, 0] - target_l).argmin())
    return (0.0, 0.0, 0.0, best / 100.0)


@lru_cache(maxsize=4096)
def separate(rgb: tuple[float, float, float], limit: int, text: bool = False) -> Ink:
    """Return the ink mix for an sRGB colour: at most ``limit`` % in all, greys (and, for
    text, near-black) in black ink alone."""
    r, g, b = (round(v * 255) for v in rgb)
    if (r, g, b) == (255, 255, 255):
        return (0.0, 0.0, 0.0, 0.0)
    target = lab_of_rgb(rgb)
    chroma = float(np.hypot(target[1], target[2]))
    black_text = text and chroma <= TEXT_BLACK_CHROMA and \
        target[0] <= _solid_black_l() + TEXT_BLACK_MARGIN
    if max(r, g, b) - min(r, g, b) <= 2 or black_text:
        return _black_only(float(target[0]))
    inks, labs, penalty = _grid(limit)
    best = inks[int(_cost(labs, penalty, target).argmin())]
    steps = range(-REFINE, REFINE + 1)
    near = np.array([best + d for d in itertools.product(steps, repeat=4)])
    near = near[(near >= 0).all(axis=1) & (near <= 100).all(axis=1)
                & (near.sum(axis=1) <= limit)]
    pick = near[int(_cost(lab_of_inks(near), _penalty(near), target).argmin())]
    return tuple(float(v) / 100.0 for v in pick)


def profile_inks(rgb: tuple[float, float, float]) -> Ink:
    """Return the ink mix a plain profile conversion gives (what Ghostscript does)."""
    from PIL import Image, ImageCms

    pixel = np.array([[[round(v * 255) for v in rgb]]], dtype=np.uint8)
    out = ImageCms.applyTransform(Image.fromarray(pixel, "RGB"), _transforms()[2])
    return tuple(v / 255.0 for v in out.getpixel((0, 0)))


def difference(rgb: tuple[float, float, float], ink: Ink) -> float:
    """Return the CIE76 difference between an sRGB colour and what an ink mix prints."""
    printed = lab_of_inks(np.array([[v * 100.0 for v in ink]]))[0]
    return float(np.sqrt(((printed - lab_of_rgb(rgb)) ** 2).sum()))
