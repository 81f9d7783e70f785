"""Monospace text OCR by template matching: the cockpit prints its numbers in DejaVu Sans Mono
with integer advances, so every character sits in a fixed cell and one rendered template per
character identifies it (nearest template by squared difference of the ink coverage)."""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

MONO = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
CHARS = "0123456789.+- "
_lock = threading.Lock()


class GlyphSet:
    """Ink templates of `CHARS` at one font size (rendered once, as the cockpit renders text)."""

    def __init__(self, size: int) -> None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        with _lock:
            if not pygame.font.get_init():
                pygame.font.init()
            font = pygame.font.Font(str(MONO) if MONO.exists() else None, size)
            self.adv, self.height = font.size("0")
            self.templates = np.zeros((len(CHARS), self.height, self.adv), np.float32)
            for i, ch in enumerate(CHARS):
                if ch == " ":
                    continue
                surf = font.render(ch, True, (255, 255, 255), (0, 0, 0))
                arr = pygame.surfarray.array3d(surf)[:, :, 0].T.astype(np.float32) / 255.0
                h, w = min(arr.shape[0], self.height), min(arr.shape[1], self.adv)
                self.templates[i, :h, :w] = arr[:h, :w]

    def width(self, n: int) -> int:
        return n * self.adv

    def read(self, ink: np.ndarray) -> str:
        """Text of an ink image (height × n·adv, values 0..1) whose cells start at x = 0."""
        n = ink.shape[1] // self.adv
        out = []
        for i in range(n):
            cell = ink[: self.height, i * self.adv : (i + 1) * self.adv]
            if cell.shape != self.templates.shape[1:]:
                pad = np.zeros(self.templates.shape[1:], np.float32)
                pad[: cell.shape[0], : cell.shape[1]] = cell
                cell = pad
            d = ((self.templates - cell[None]) ** 2).sum(axis=(1, 2))
            out.append(CHARS[int(np.argmin(d))])
        return "".join(out)


@lru_cache(maxsize=None)
def glyphs(size: int) -> GlyphSet:
    return GlyphSet(size)


def ink(
    img: np.ndarray, x: int, y: int, w: int, h: int, fg: tuple[int, int, int], bg: tuple[int, int, int]
) -> np.ndarray:
    """Ink coverage 0..1 of an RGB-coloured text on a flat background, from a BGR screenshot
    region: the pixel's projection on the background→foreground colour axis."""
    region = img[y : y + h, x : x + w, ::-1].astype(np.float32)  # BGR → RGB
    f, b = np.array(fg, np.float32), np.array(bg, np.float32)
    axis = f - b
    return np.clip(((region - b) @ axis) / float(axis @ axis), 0.0, 1.0)


def read_text(
    img: np.ndarray, x: int, y: int, n: int, size: int, fg: tuple[int, int, int], bg: tuple[int, int, int]
) -> str:
    """The `n` characters printed at (x, y) (top-left of the text surface)."""
    g = glyphs(size)
    return g.read(ink(img, x, y, g.width(n), g.height, fg, bg))


def read_centred(
    img: np.ndarray, cx: int, cy: int, n: int, size: int, fg: tuple[int, int, int], bg: tuple[int, int, int]
) -> str:
    """The `n` characters printed centred on (cx, cy), as the cockpit centres its labels."""
    g = glyphs(size)
    w = g.width(n)
    return read_text(img, cx - w // 2, cy - g.height // 2, n, size, fg, bg)
