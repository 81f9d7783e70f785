"""CARLA recorder fixed-size records decoded with numpy over a whole block: record offsets and
gathering, traffic-light state changes, last-per-id tables, and the structural error report."""

from __future__ import annotations


import numpy as np
from numpy.lib.stride_tricks import as_strided

from simbridge.adapters.carla._errors import RecorderFormatError
from simbridge.adapters.carla._format import (
    RECORD_DTYPES,
    SCALAR_DTYPES,
    ActorKind,
    PacketId,
)

from simbridge.adapters.carla._packets import _Cursor, _fixed

_KINDS = list(ActorKind)

#: variable-size packets that start with a u16 record count
_COUNTED = np.zeros(256, bool)
_COUNTED[[PacketId.EVENT_ADD, PacketId.PHYSICS_CONTROL, PacketId.WALKER_BONES, PacketId.ANIM_VEHICLE_WHEELS]] = True
_ITEMSIZE = np.zeros(256, np.int64)
for _pid, _dt in RECORD_DTYPES.items():
    _ITEMSIZE[int(_pid)] = _dt.itemsize


def _raise_structural(path: str, buf: bytes, base: int, p: int, meaning: int, size: int, fi: int) -> None:
    if fi < 0 and meaning != 0:
        raise RecorderFormatError(path, base + p, f"packet id {buf[p]} before the first FrameStart")
    if meaning == 0:
        raise RecorderFormatError(path, base + p, f"FrameStart has {size} bytes, expected 24")
    if meaning == 1:
        raise RecorderFormatError(path, base + p, f"FrameEnd has {size} bytes, expected 0")
    if meaning in SCALAR_DTYPES:
        raise RecorderFormatError(
            path, base + p, f"{PacketId(meaning).name} has {size} bytes, expected {SCALAR_DTYPES[meaning].itemsize}"
        )
    if meaning not in RECORD_DTYPES:
        raise RecorderFormatError(
            path, base + p, f"{PacketId(meaning).name} has {size} bytes, too short for its record count"
        )
    _fixed(_Cursor(buf, p + 5, p + 5 + size, path, base), meaning)  # raises, naming the packet
    raise RecorderFormatError(path, base + p, f"packet id {buf[p]} is malformed")


def _record_offsets(starts: np.ndarray, counts: np.ndarray, itemsize: int) -> np.ndarray:
    """Byte offset of every record of several count-prefixed packets (runs starting at `starts`)."""
    total = int(counts.sum())
    before = np.cumsum(counts) - counts
    return np.repeat(starts - before * itemsize, counts) + np.arange(total, dtype=np.int64) * itemsize


def _records_at(u8: np.ndarray, rec_at: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Copy the records at these byte offsets into one structured array.

    One fancy-indexing copy: a zero-copy sliding window over the block has one row per byte
    offset, and its rows at the records' offsets are exactly the records.
    """
    isz = dt.itemsize
    window = as_strided(u8, shape=(u8.size - isz + 1, isz), strides=(1, 1), writeable=False)
    return window[rec_at].reshape(-1).view(dt)


def _take_records(u8: np.ndarray, starts: np.ndarray, counts: np.ndarray, dt: np.dtype) -> np.ndarray:
    if starts.size == 1:
        s = int(starts[0])
        return u8[s : s + int(counts[0]) * dt.itemsize].view(dt)
    return _records_at(u8, _record_offsets(starts, counts, dt.itemsize), dt)


def _last_per_id(ids: np.ndarray) -> np.ndarray:
    _, idx = np.unique(ids[::-1], return_index=True)
    return ids.size - 1 - idx


_TL_OUT = np.dtype([("id", "<u4"), ("frame_index", "<i8"), ("state", "u1"), ("frozen", "u1"), ("elapsed_s", "<f4")])


def _tl_changes_same_layout(
    u8: np.ndarray,
    u32_at: np.ndarray,
    rec_at: np.ndarray,
    rf: np.ndarray,
    counts: np.ndarray,
    last: dict[int, tuple[int, int]],
) -> np.ndarray | None:
    """State changes when every packet of the block lists the same lights in the same order.

    That is the usual case (the recorder walks its actor registry in a stable order), and then
    the block is a (packets x lights) matrix compared row to row without sorting. Returns None
    when the layout differs, for the general path.
    """
    n_pk, n_tl = counts.size, int(counts[0])
    if n_pk < 2 or not (counts == n_tl).all():
        return None
    ids = u32_at[rec_at].reshape(n_pk, n_tl)
    if not (ids == ids[0]).all():
        return None
    at = rec_at.reshape(n_pk, n_tl)
    key = u8[at + 9].astype(np.int64) * 2 + u8[at + 4]
    changed = np.empty((n_pk, n_tl), bool)
    changed[0] = True
    changed[1:] = key[1:] != key[:-1]
    for c, lid in enumerate(ids[0].tolist()):
        prev = last.get(lid)
        if prev is not None and prev[1] == int(key[0, c]):
            changed[0, c] = False
        last[lid] = (int(rf.reshape(n_pk, n_tl)[-1, c]), int(key[-1, c]))
    sel_at = at[changed]
    out = np.zeros(sel_at.size, _TL_OUT)
    out["id"] = u32_at[sel_at]
    out["frame_index"] = rf.reshape(n_pk, n_tl)[changed]
    out["state"] = u8[sel_at + 9]
    out["frozen"] = u8[sel_at + 4]
    out["elapsed_s"] = np.ndarray((u8.size - 3,), "<f4", buffer=u8, strides=(1,))[sel_at + 5]
    return out


def _tl_changes(recs: np.ndarray, fidx: np.ndarray, last: dict[int, tuple[int, int]]) -> np.ndarray:
    """Keep only the records where a light's state or frozen flag changes (and each light's first)."""
    out_dt = np.dtype([("id", "<u4"), ("frame_index", "<i8"), ("state", "u1"), ("frozen", "u1"), ("elapsed_s", "<f4")])
    # records come in frame order: a stable sort by a dense 16-bit light index groups them by
    # light and keeps frame order (numpy radix-sorts 16-bit keys)
    uniq, slot = np.unique(recs["id"], return_inverse=True)
    if uniq.size < 1 << 16:
        order = np.argsort(slot.astype(np.uint16), kind="stable")
    else:
        order = np.lexsort((fidx, recs["id"]))
    r, f = recs[order], fidx[order]
    key = r["state"].astype(np.int64) * 2 + r["frozen"].astype(np.int64)
    same_id = np.zeros(r.size, bool)
    same_id[1:] = r["id"][1:] == r["id"][:-1]
    changed = np.ones(r.size, bool)
    changed[1:] = key[1:] != key[:-1]
    changed |= ~same_id
    # compare each light's first record in this block with its last state from earlier blocks
    for i in np.flatnonzero(~same_id):
        prev = last.get(int(r["id"][i]))
        if prev is not None and prev[1] == int(key[i]):
            changed[i] = False
    ends = np.flatnonzero(np.append(r["id"][1:] != r["id"][:-1], True)) if r.size else np.zeros(0, np.int64)
    for i in ends.tolist():
        last[int(r["id"][i])] = (int(f[i]), int(key[i]))
    sel = r[changed]
    out = np.zeros(sel.size, out_dt)
    out["id"], out["frame_index"], out["state"] = sel["id"], f[changed], sel["state"]
    out["frozen"], out["elapsed_s"] = sel["frozen"], sel["elapsed_s"]
    return out


def _with_time(r: np.ndarray, f: np.ndarray, elapsed: np.ndarray) -> np.ndarray:
    names = [n for n in r.dtype.names or () if n != "frame_index"]
    dt = np.dtype([("t", "<f8"), ("frame_index", "<i8")] + [(n, r.dtype[n]) for n in names])
    out = np.zeros(r.size, dt)
    out["t"] = elapsed[f]
    out["frame_index"] = f
    for n in names:
        out[n] = r[n]
    return out
