"""Batched evaluation of one object record: its channels, rotation and local matrix at many times.

`TrackKernel` holds a RefTrack's compiled controllers in the layout of reference/csrc/kernels.c and
evaluates them in one call per batch (or one call per time for the per-call API). `Poses` is the
result for many times; `Playback` runs _AnimateForward over all steps of a playback and evaluates
each track at every step's pose time in one call.

Every result equals the per-call Python path (Animation.pose / local_matrix with native=False) bit
for bit; tests/reference checks it on the corpus.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import List, Sequence

import numpy as np

from . import kernels as K

M32 = 0xFFFFFFFF


def times_array(times) -> np.ndarray:
    """Times as a uint32 array (each taken as a u32, like every time of the model)."""
    return np.ascontiguousarray(np.asarray(times, dtype=np.uint64) & M32, dtype=np.uint32)


class TrackKernel:
    """A RefTrack's channels (pos, scale, alpha), its constant 16-word rotation or its keyed
    rotation, laid out for the compiled kernels."""

    def __init__(self, kern: K.Kernels, model: str, compiled):
        pos_c, rot_c, scale_c, alpha_c = compiled
        self.k = kern
        self.model = model
        self.code = K.MODEL_CODE[model]
        self._keep: list = []
        self.ch3 = K.ctrl_array((pos_c, scale_c, alpha_c), self._keep)
        self.keyed = None
        self.R16 = None
        if isinstance(rot_c, tuple):
            self.R16 = np.ascontiguousarray(rot_c, dtype=np.uint32)
            self._R16p = self.R16.ctypes.data_as(K._u32p)
            self.struct = K.TrackStruct(ctypes.addressof(self.ch3), self.R16.ctypes.data, None)
        else:
            self.keyed = K.keyed_struct(rot_c, self._keep)
            self.struct = K.TrackStruct(ctypes.addressof(self.ch3), None, ctypes.addressof(self.keyed))
        # per-call buffers
        self._t = (ctypes.c_uint32 * 1)()
        self._out7 = (ctypes.c_uint32 * 7)()
        self._out16 = (ctypes.c_uint32 * 16)()
        self._m9 = (ctypes.c_double * 9)()
        self._passed = (ctypes.c_int64 * 1)()

    # ------------------------------------------------------------ one time (the per-call API)

    def channels_at(self, T: int):
        """(pos, scale, alpha) words at T."""
        self._t[0] = T
        self.k.lib.ref_channels(self.code, self.ch3, 3, self._t, 1, self._out7)
        o = self._out7[:]
        return tuple(o[0:3]), tuple(o[3:6]), o[6]

    def local_at(self, T: int):
        """local_exact(R16, scale(T), pos(T)) at T: 16 words."""
        self._t[0] = T
        self.k.lib.ref_track_local(self.code, self.ch3, self._R16p, self._t, 1, self._out16)
        return tuple(self._out16[:])

    def keyed_at(self, T: int):
        """(3x3 float64, passed) of the keyed rotation at T."""
        self._t[0] = T
        self.k.lib.ref_keyed_eval(self.code, ctypes.byref(self.keyed), self._t, 1, self._m9,
                                  self._passed)
        return np.array(self._m9[:], dtype=np.float64).reshape(3, 3), self._passed[0]

    # ------------------------------------------------------------ many times

    def channels(self, T: np.ndarray) -> np.ndarray:
        return self.k.channels(self.model, self.ch3, T)

    def local(self, T: np.ndarray) -> np.ndarray:
        return self.k.track_local(self.model, self.ch3, self.R16, T)

    def keyed_many(self, T: np.ndarray):
        return self.k.keyed(self.model, self.keyed, T)


@dataclass(repr=False, eq=False)
class Poses:
    """An object record's channels at many times (the batched form of Pose).

    time (n,) uint32 (each min(T, last)); pos, scale (n, 3) uint32; alpha (n,) uint32;
    passed (n,) int64. rot_keyed: whether the rotation is keyed. For a keyed rotation rot_matrix is
    (n, 3, 3) float64; otherwise rot (9 scratch-order words), rot16 (16 words) and rot_matrix (3, 3)
    are the same at every time. pose(j) gives the Pose of entry j.
    """

    time: np.ndarray
    pos: np.ndarray
    scale: np.ndarray
    alpha: np.ndarray
    rot_keyed: bool
    rot: object
    rot16: object
    rot_matrix: np.ndarray
    passed: np.ndarray
    rot_kind: int

    def __len__(self):
        return len(self.time)

    def pose(self, j: int):
        from .pose import Pose
        if self.rot_keyed:
            return Pose(int(self.time[j]), tuple(self.pos[j].tolist()), tuple(self.scale[j].tolist()),
                        int(self.alpha[j]), None, None, True, self.rot_matrix[j].copy(),
                        int(self.passed[j]), 2)
        return Pose(int(self.time[j]), tuple(self.pos[j].tolist()), tuple(self.scale[j].tolist()),
                    int(self.alpha[j]), list(self.rot), self.rot16, False, self.rot_matrix.copy(), 0,
                    self.rot_kind)


class TrackBatch:
    """Several object records at a playback's pose times (Playback.tracks), entry (k, t) for time k
    and track t: chan (n, ntr, 7) uint32, each track's pos, scale and alpha words; keyed (ntr,)
    bool, whether its rotation is keyed; local (n, ntr, 16) uint32, the local matrix of a track
    whose rotation is not keyed; rot (n, ntr, 3, 3) float64 and passed (n, ntr) int64, the rotation
    and passed(T) of a keyed one. Each entry equals Poses / local_matrices of that track."""

    def __init__(self, chan, local, rot, passed, keyed):
        self.chan = chan
        self.local = local
        self.rot = rot
        self.passed = passed
        self.keyed = keyed


class Playback:
    """All steps of one playback from `time` (animation-semantics.md §8.1), and every track
    evaluated at the steps' pose times in one call per track.

    forwards: the Forward of each step. evaluated: the indices of the steps with a pose time.
    times: min(pose_at, last) of those steps (uint32). poses(track), local_matrices(track): the
    batched values at `times`, row k for step evaluated[k]; computed on first use and kept.
    """

    def __init__(self, anim, steps: Sequence[int], time: int = 0):
        self.anim = anim
        fw: List = []
        t = time
        for s in steps:
            f = anim.forward(t, s)
            fw.append(f)
            t = f.time
        self.forwards = fw
        self.evaluated = [i for i, f in enumerate(fw) if f.pose_at is not None]
        self.times = times_array([min(fw[i].pose_at, anim.last) for i in self.evaluated])
        self.row = {i: k for k, i in enumerate(self.evaluated)}
        self._poses = {}
        self._locals = {}
        self._batches = {}

    def poses(self, track) -> Poses:
        tr = self.anim._track(track)
        p = self._poses.get(tr.index)
        if p is None:
            p = self._poses[tr.index] = self.anim.poses(tr, self.times)
        return p

    def local_matrices(self, track) -> np.ndarray:
        tr = self.anim._track(track)
        L = self._locals.get(tr.index)
        if L is None:
            L = self._locals[tr.index] = self.anim.local_matrices(tr, self.times)
        return L

    def tracks(self, tracks) -> TrackBatch:
        """Every track of `tracks` at the pose times, in one call of the compiled kernels (else
        from each track's poses and local matrices); kept, so the same tracks asked again (a
        query's bound, then its answer) are evaluated once."""
        trs = [self.anim._track(t) for t in tracks]
        key = tuple(tr.index for tr in trs)
        tb = self._batches.get(key)
        if tb is None:
            tb = self._batches[key] = self._tracks(trs)
        return tb

    def _tracks(self, trs) -> TrackBatch:
        return tracks_at(self.anim, trs, self.times, self)

    def pose(self, track, step: int):
        """The Pose of `track` at step `step`'s pose time (the step must have one)."""
        return self.poses(track).pose(self.row[step])

    def local_matrix(self, track, step: int):
        """local_matrix(track, T) of step `step`: 16 words (a tuple) or a 4x4 float64."""
        L = self.local_matrices(track)[self.row[step]]
        return tuple(L.tolist()) if L.dtype == np.uint32 else L


def tracks_at(anim, trs, times: np.ndarray, playback=None) -> TrackBatch:
    """The RefTracks `trs` at every time of `times` (uint32, each already min(T, last)), in one
    call of the compiled kernels; without them from each track's poses and local matrices (a
    Playback's own, kept, when `playback` holds these times)."""
    keyed = np.array([tr.keyed_rotation for tr in trs], dtype=bool)
    kern = anim.kernels
    if kern is not None and trs:
        arr = (K.TrackStruct * len(trs))(*(tr.kernel(kern, anim.float_model).struct for tr in trs))
        chan, local, rot, passed = kern.tracks(anim.float_model, arr, times)
        return TrackBatch(chan, local, rot, passed, keyed)
    src = playback or anim
    at = () if playback is not None else (times,)
    n, ntr = times.size, len(trs)
    chan = np.empty((n, ntr, 7), dtype=np.uint32)
    local = np.zeros((n, ntr, 16), dtype=np.uint32)
    rot = np.zeros((n, ntr, 3, 3), dtype=np.float64)
    passed = np.zeros((n, ntr), dtype=np.int64)
    for t, tr in enumerate(trs):
        P = src.poses(tr, *at)
        chan[:, t, 0:3], chan[:, t, 3:6], chan[:, t, 6] = P.pos, P.scale, P.alpha
        if keyed[t]:
            rot[:, t], passed[:, t] = P.rot_matrix, P.passed
        else:
            local[:, t] = src.local_matrices(tr, *at)
    return TrackBatch(chan, local, rot, passed, keyed)
