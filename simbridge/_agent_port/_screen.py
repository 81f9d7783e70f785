"""Screen capture on the sandbox display: mss grabs, OpenCV encodes (PNG or JPEG, optional scaling).

OpenCV's encoders are used because a 1280×800 grab+encode must stay well under a frame
(the benchmark checks p50 < 15 ms): PNG without row filters at zlib level 1, JPEG at quality 80.
Pillow's PNG encoder is several times slower.
"""

from __future__ import annotations

import threading
from typing import Literal

import numpy as np

ImageFormat = Literal["png", "jpeg"]


class Screenshot:
    """A screen image as the agent gets it: `data` in `format`. `width`/`height` are of the
    (possibly scaled) image; `scale` maps image pixels back to screen pixels (screen = image /
    scale).

    A PNG taken in process keeps its pixels and is encoded only when `data` is first read: PNG is
    lossless, so `to_array()` of the kept pixels is exactly the decoded PNG, and an in-process
    agent (a reference pilot) that only looks at pixels pays for neither encoding nor decoding."""

    __slots__ = ("_data", "_pixels", "format", "width", "height", "scale")

    def __init__(
        self,
        data: bytes | None,
        format: ImageFormat,
        width: int,
        height: int,
        scale: float = 1.0,
        *,
        pixels: np.ndarray | None = None,
    ) -> None:
        if data is None and (pixels is None or format != "png"):
            raise ValueError("a screenshot needs its encoded data, or its pixels for a PNG")
        self._data, self._pixels = data, pixels
        self.format, self.width, self.height, self.scale = format, width, height, scale

    @property
    def data(self) -> bytes:
        if self._data is None:
            assert self._pixels is not None
            self._data = encode(self._pixels, "png")
        return self._data

    @property
    def mime_type(self) -> str:
        return f"image/{self.format}"

    def to_array(self) -> np.ndarray:
        """Decode to an H×W×3 BGR uint8 array (OpenCV's layout); a fresh array, safe to change."""
        if self._pixels is not None:
            return self._pixels.copy()
        import cv2

        arr = cv2.imdecode(np.frombuffer(self.data, np.uint8), cv2.IMREAD_COLOR)
        if arr is None:
            raise ValueError("screenshot data is not a decodable image")
        return arr

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Screenshot):
            return NotImplemented
        return (self.data, self.format, self.width, self.height, self.scale) == (
            other.data,
            other.format,
            other.width,
            other.height,
            other.scale,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Screenshot({self.format}, {self.width}x{self.height}, scale={self.scale:g})"


def encode(bgr: np.ndarray, fmt: ImageFormat = "png", *, quality: int = 80, png_level: int = 1) -> bytes:
    import cv2

    if fmt == "png":
        # no per-row filtering: 2-3× faster than the default adaptive filters on screen content
        params = [cv2.IMWRITE_PNG_COMPRESSION, png_level]
        if hasattr(cv2, "IMWRITE_PNG_FILTER"):
            params += [cv2.IMWRITE_PNG_FILTER, cv2.IMWRITE_PNG_FILTER_NONE]
        ok, buf = cv2.imencode(".png", bgr, params)
    elif fmt in ("jpeg", "jpg"):
        ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    else:
        raise ValueError(f"unknown image format {fmt!r} (png or jpeg)")
    if not ok:
        raise RuntimeError(f"{fmt} encoding failed")
    return buf.tobytes()


def _scaled(img: np.ndarray, scale: float) -> np.ndarray:
    import cv2

    if abs(scale - 1.0) <= 1e-6:
        return img
    h, w = img.shape[:2]
    return cv2.resize(
        img,
        (max(1, round(w * scale)), max(1, round(h * scale))),
        interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
    )


class ScreenGrabber:
    """Grabs the whole root window of one X display. mss handles are per thread (they are not
    thread-safe), so each calling thread gets its own."""

    def __init__(self, display: str) -> None:
        self.display = display
        self._local = threading.local()
        self._all: list[object] = []
        self._lock = threading.Lock()

    def _sct(self):
        sct = getattr(self._local, "sct", None)
        if sct is None:
            import mss

            factory = getattr(mss, "MSS", None) or mss.mss
            sct = factory(display=self.display)
            self._local.sct = sct
            with self._lock:
                self._all.append(sct)
        return sct

    @property
    def size(self) -> tuple[int, int]:
        mon = self._sct().monitors[0]
        return int(mon["width"]), int(mon["height"])

    def grab_bgr(self) -> np.ndarray:
        """The screen as an H×W×3 BGR array (a copy, safe to keep)."""
        sct = self._sct()
        shot = sct.grab(sct.monitors[0])
        import cv2

        # `raw` is mss's own copy of the grab; `bgra` would copy it once more, on every frame
        bgra = np.frombuffer(shot.raw, np.uint8).reshape(shot.height, shot.width, 4)
        return cv2.cvtColor(bgra, cv2.COLOR_BGRA2BGR)  # SIMD copy; numpy's strided slice is ~20× slower

    def screenshot(
        self,
        fmt: ImageFormat = "png",
        *,
        scale: float = 1.0,
        quality: int = 80,
        region: tuple[int, int, int, int] | None = None,
        max_bytes: int | None = None,
    ) -> Screenshot:
        """The screen (or `region` = (x0, y0, x1, y1) of it, at screen resolution) as an image.

        With `max_bytes` (a transport's message limit) an image that encodes larger is scaled
        down further, in the same format, until it fits; `scale` is then the scale it has."""
        img = self.grab_bgr()
        if region is not None:
            x0, y0, x1, y1 = region
            img = np.ascontiguousarray(img[y0:y1, x0:x1])
        if scale <= 0 or scale > 4:
            raise ValueError(f"scale must be in (0, 4], got {scale}")
        fmt = "jpeg" if str(fmt) == "jpg" else fmt  # "jpg" is accepted from untyped callers
        out = _scaled(img, scale)
        if fmt == "png" and max_bytes is None:  # encoded when (if ever) its bytes are read
            return Screenshot(None, "png", out.shape[1], out.shape[0], scale, pixels=out)
        data = encode(out, fmt, quality=quality)
        for _ in range(8):
            if max_bytes is None or len(data) <= max_bytes:
                break
            # encoded size goes roughly with the pixel count: aim a little under the bound
            scale = max(0.01, scale * min(0.9, (max_bytes / len(data)) ** 0.5 * 0.95))
            out = _scaled(img, scale)
            data = encode(out, fmt, quality=quality, png_level=6 if fmt == "png" else 1)
        return Screenshot(data, fmt, out.shape[1], out.shape[0], scale)

    def close(self) -> None:
        with self._lock:
            for sct in self._all:
                try:
                    sct.close()  # type: ignore[attr-defined]
                except Exception:
                    pass
            self._all.clear()
        self._local = threading.local()
