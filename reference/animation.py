"""The reference model of one Anime chunk: poses, texture offsets, playback, notes, morphs, F_Obj.

Animation.parse(chunk_bytes, names=None, ext=None, float_model="hw") is the entry point
(interfaces.md §3). Everything follows animation-semantics.md; controllers are compiled once per
track on first use and cached.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from corpus.anime import parse_anime
from corpus.lights import direct_lights
from corpus.records import MaterialTrack, Track

from . import kernels
from . import playback
from .batch import Playback, Poses, TrackKernel, times_array
from .pose import Pose
from .controllers import compile_controller
from .eefloat import bits_to_double, ops as float_ops
from .rotation import (IDENTITY16, KeyedRotation, mul_matrix, scratch9, single_rotation, to_double3)

M32 = 0xFFFFFFFF
ONE = 0x3F800000
F4096 = 0x45800000
DEFAULT_POS = (0, 0, 0)
DEFAULT_SCALE = (ONE, ONE, ONE)
DEFAULT_ALPHA = (ONE,)
PLAYBACKS_KEPT = 4           # the nightly's speeds: one playback each


def _s16(x: int) -> int:
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x


class RefTrack:
    """One 0x0102 record (its own instance, §5) with its channels compiled on first use."""

    def __init__(self, record, frames: int, o, names=None):
        self.record = record
        self.index = record.index
        self.object = record.object
        self.target = record.target
        self.name = (names or {}).get(record.object)
        self.keyed_rotation = record.rot.kind == 2
        self.rot_kind = record.rot.kind
        self._frames = frames
        self._o = o
        self._compiled = None
        self._rot_double = None
        self._kernel = None

    def compiled(self, rot_fn=None):
        """(pos, rot, scale, alpha) evaluators; rot_fn(rx, ry, rz) is sceVu0RotMatrix (the
        compiled kernel's when the model has one, else rotation.rot_matrix)."""
        if self._compiled is None:
            r, n, o = self.record, self._frames, self._o
            kern, model = (rot_fn.kern, rot_fn.model) if isinstance(rot_fn, KernelRot) else (None, None)
            pos = compile_controller(r.pos, DEFAULT_POS, n, o, kern, model)
            scale = compile_controller(r.scale, DEFAULT_SCALE, n, o, kern, model)
            alpha = compile_controller(r.alpha, DEFAULT_ALPHA, n, o, kern, model)
            if r.rot.kind == 2 and isinstance(rot_fn, KernelRot):
                rot = KeyedRotation.compiled(r.rot.keys, n, o, rot_fn.kern, rot_fn.model)
            elif r.rot.kind == 2:
                rot = KeyedRotation(r.rot.keys, n, o, rot=rot_fn)
            elif r.rot.kind == 1:
                rot = single_rotation(r.rot.value, o, rot=rot_fn)   # §3.7, bit-exact, constant
            else:
                rot = IDENTITY16                                 # §3.8
            self._compiled = (pos, rot, scale, alpha)
        return self._compiled

    def kernel(self, kern, model):
        """The TrackKernel of this record for the compiled kernels `kern` (built on first use)."""
        if self._kernel is None:
            self._kernel = TrackKernel(kern, model, self.compiled(_rot_fn(kern, model)))
        return self._kernel

    def __repr__(self):
        return f"RefTrack(index={self.index}, object={self.object}, target={self.target})"


class KernelRot:
    """sceVu0RotMatrix through the compiled kernels (rot(rx, ry, rz)); a keyed rotation is then set
    up by them too (KeyedRotation.compiled)."""

    __slots__ = ("kern", "model")

    def __init__(self, kern, model):
        self.kern, self.model = kern, model

    def __call__(self, rx, ry, rz):
        return self.kern.rot_matrix(self.model, rx, ry, rz)


def _rot_fn(kern, model):
    """sceVu0RotMatrix through the compiled kernels, or None (rotation.rot_matrix) without them."""
    if kern is None:
        return None
    return KernelRot(kern, model)


class RefMaterial:
    """One 0x0202 record: texture offsets U and V (§6); absent channels are +0."""

    def __init__(self, record, frames: int, o):
        self.record = record
        self.index = record.index
        self.material = record.material
        self.u = compile_controller(record.u, (0,), frames, o)
        self.v = compile_controller(record.v, (0,), frames, o)

    def __repr__(self):
        return f"RefMaterial(index={self.index}, material={self.material})"


class RefLight:
    """One 0x0605 direct light record (formats.md §4.7, docs/lights.md): its present channels."""

    def __init__(self, record, frames: int, o):
        self.record = record
        self.index = record.index
        self.object = record.object
        self.channels = [compile_controller(c, (0,) * c.width, frames, o) if c.kind else None
                         for c in record.channels]

    def __repr__(self):
        return f"RefLight(index={self.index}, object={self.object})"


class Animation:
    """The reference model of one Anime chunk (interfaces.md §3)."""

    def __init__(self, anime, names=None, ext=None, float_model: str = "hw", native=None):
        """native: None uses the compiled kernels when they build (else the Python model, with a
        one-line notice); False always runs the Python model; True requires the kernels."""
        self.anime = anime
        self.names = dict(names or {})
        self.ext = dict(ext or {})
        self.float_model = float_model
        self.ops = o = float_ops(float_model)
        if native is False:
            self.kernels = None
        else:
            self.kernels = kernels.native()
            if native and self.kernels is None:
                raise RuntimeError("the reference's compiled kernels are unavailable (see the notice above)")
        self.frames = anime.frames
        # DECISION: only the end Top −2 loops; −1 and any other end value (≥ 0xFFFFFF00) play once.
        self.loops = anime.loops
        self.last = max(0, (anime.frames - 1) * 256) & M32     # the checks' clamped last (§8.2)
        self.tracks = [RefTrack(t, anime.frames, o, self.names) for t in anime.tracks]
        self.materials = [RefMaterial(m, anime.frames, o) for m in anime.materials]
        self.lights = [RefLight(r, anime.frames, o) for r in direct_lights(anime)]
        self.morphs: Dict[int, list] = {}
        for m in anime.morphs:
            self.morphs.setdefault(m.morpher, []).append(m)
        self.notes = list(anime.notes)
        self.fobjs = list(anime.fobjs)
        self._fobj_by_obj: Dict[int, list] = {}
        for r in self.fobjs:
            self._fobj_by_obj.setdefault(r.object, []).append(r)
        self._local_cache = {}
        self._playbacks: Dict[tuple, Playback] = {}
        self._material_by_obj = {}
        for m in self.materials:
            self._material_by_obj.setdefault(m.material, m)     # formats.md §4.6: the first is used

    @classmethod
    def parse(cls, chunk_bytes, names=None, ext=None, float_model: str = "hw", where=None, native=None):
        """Parse a chunk (bytes from its 0x0700 header) and build its model."""
        return cls(parse_anime(chunk_bytes, ext=ext, where=where), names=names, ext=ext,
                   float_model=float_model, native=native)

    # ------------------------------------------------------------------ lookups

    # DECISION: pose(track, ...) takes a RefTrack, a corpus Track or its index (records for one object can repeat,
    # §5); uv(material, ...) takes a RefMaterial, a corpus MaterialTrack or a material object (the first record, §4.6).
    def _track(self, track) -> RefTrack:
        if isinstance(track, RefTrack):
            return track
        if isinstance(track, Track):
            return self.tracks[track.index]
        return self.tracks[track]

    def _material(self, material) -> RefMaterial:
        if isinstance(material, RefMaterial):
            return material
        if isinstance(material, MaterialTrack):
            return self.materials[material.index]
        try:
            return self._material_by_obj[material]
        except KeyError:
            raise KeyError(f"no 0x0202 record for material object {material}") from None

    def name(self, obj) -> str:
        n = self.names.get(obj)
        return f"{n} ({obj})" if n else str(obj)

    def clamp(self, time: int) -> int:
        return min(time & M32, self.last)

    # ------------------------------------------------------------------ object records (§2-§4)

    def pose(self, track, time: int) -> Pose:
        """The record's channels at min(time, last) (§4 step 1). track: a RefTrack, a corpus Track
        or the track's index."""
        tr = self._track(track)
        T = self.clamp(time)
        pos_c, rot_c, scale_c, alpha_c = tr.compiled(_rot_fn(self.kernels, self.float_model))
        if self.kernels is not None:
            tk = tr.kernel(self.kernels, self.float_model)
            pos, scale, alpha = tk.channels_at(T)
            if tr.keyed_rotation:
                m, passed = tk.keyed_at(T)
                return Pose(T, pos, scale, alpha, None, None, True, m, passed, 2)
        else:
            pos = pos_c.evaluate(T)
            scale = scale_c.evaluate(T)
            alpha = alpha_c.evaluate(T)[0]
            if tr.keyed_rotation:
                m = rot_c.evaluate(T)
                return Pose(T, pos, scale, alpha, None, None, True, np.array(m, dtype=np.float64),
                            rot_c.passed(T), 2)
        if tr._rot_double is None:
            tr._rot_double = (scratch9(rot_c), np.array(to_double3(rot_c), dtype=np.float64))
        words, dbl = tr._rot_double
        return Pose(T, pos, scale, alpha, list(words), rot_c, False, dbl.copy(), 0, tr.rot_kind)

    def passed(self, track, time: int) -> int:
        """passed(min(time, last)) of the track's keyed rotation (§3.6), 0 otherwise."""
        tr = self._track(track)
        rot_c = tr.compiled(_rot_fn(self.kernels, self.float_model))[1]
        return rot_c.passed(self.clamp(time)) if tr.keyed_rotation else 0

    def passed_many(self, track, times) -> List[int]:
        """passed() at each time of `times`: the track compiled once."""
        tr = self._track(track)
        if not tr.keyed_rotation:
            return [0] * len(times)
        rot_c = tr.compiled(_rot_fn(self.kernels, self.float_model))[1]
        return [rot_c.passed(self.clamp(t)) for t in times]

    def rotation_holds(self, track) -> List[Tuple[int, int, Tuple[int, ...]]]:
        """[(T, key, words)] for the track's keyed rotation: each key held after a turn into it
        (rotation.KeyedRotation.holds), with that key's own sceVu0RotMatrix words, for T ≤ last − 1.
        Empty for other rotations."""
        tr = self._track(track)
        if not tr.keyed_rotation:
            return []
        rot_c = tr.compiled(_rot_fn(self.kernels, self.float_model))[1]
        return [(T, k, rot_c.key_words[k]) for T, k in rot_c.holds() if T < self.last]

    def local_matrix(self, track, time: int):
        """§4 step 3: local = T(p)·R·S. 16 u32 column-major words (R ⊗ S in EE arithmetic, then
        the translation add) when the rotation is single-value or absent; a 4x4 float64 (math
        rows) when it is keyed."""
        if self.kernels is not None:
            tr = self._track(track)
            if not tr.keyed_rotation:
                return tr.kernel(self.kernels, self.float_model).local_at(self.clamp(time))
        p = self.pose(track, time)
        if p.rot_keyed:
            return local_double(p.rot_matrix, p.scale, p.pos)
        key = (p.rot16, p.scale, p.pos)
        L = self._local_cache.get(key)
        if L is None:
            if len(self._local_cache) > 4096:
                self._local_cache.clear()
            L = self._local_cache[key] = local_exact(p.rot16, p.scale, p.pos, self.ops)
        return L

    # ------------------------------------------------------------------ batched (many times, one call)

    def poses(self, track, times) -> Poses:
        """The record's channels at every time of `times` (each clamped to last), as arrays: the
        batched form of pose(); Poses.pose(j) equals pose(track, times[j])."""
        tr = self._track(track)
        T = np.minimum(times_array(times), np.uint32(self.last))
        n = T.size
        _, rot_c, _, _ = tr.compiled(_rot_fn(self.kernels, self.float_model))
        if self.kernels is not None:
            tk = tr.kernel(self.kernels, self.float_model)
            ch = tk.channels(T)
            pos, scale, alpha = ch[:, 0:3], ch[:, 3:6], ch[:, 6]
            if tr.keyed_rotation:
                m, passed = tk.keyed_many(T)
                return Poses(T, pos, scale, alpha, True, None, None, m, passed, 2)
        else:
            ps = [self.pose(tr, int(t)) for t in T]
            pos = np.array([p.pos for p in ps], dtype=np.uint32).reshape(n, 3)
            scale = np.array([p.scale for p in ps], dtype=np.uint32).reshape(n, 3)
            alpha = np.array([p.alpha for p in ps], dtype=np.uint32).reshape(n)
            if tr.keyed_rotation:
                m = np.array([p.rot_matrix for p in ps], dtype=np.float64).reshape(n, 3, 3)
                passed = np.array([p.passed for p in ps], dtype=np.int64).reshape(n)
                return Poses(T, pos, scale, alpha, True, None, None, m, passed, 2)
        if tr._rot_double is None:
            tr._rot_double = (scratch9(rot_c), np.array(to_double3(rot_c), dtype=np.float64))
        words, dbl = tr._rot_double
        return Poses(T, pos, scale, alpha, False, list(words), rot_c, dbl.copy(),
                     np.zeros(n, dtype=np.int64), tr.rot_kind)

    def local_matrices(self, track, times, poses: Optional[Poses] = None) -> np.ndarray:
        """local_matrix() at every time of `times`: (n, 16) uint32 column-major words for a
        single-value or absent rotation, (n, 4, 4) float64 for a keyed one. poses: poses(track,
        times) when the caller has them already (a keyed rotation's matrices are built from them)."""
        tr = self._track(track)
        T = np.minimum(times_array(times), np.uint32(self.last))
        if not tr.keyed_rotation:
            if self.kernels is not None:
                return tr.kernel(self.kernels, self.float_model).local(T)
            return np.array([self.local_matrix(tr, int(t)) for t in T], dtype=np.uint32).reshape(-1, 16)
        p = self.poses(tr, T) if poses is None else poses
        return local_doubles(p.rot_matrix, p.scale, p.pos)

    def playback(self, steps, time: int = 0) -> Playback:
        """All steps of a playback from `time`: each step's Forward, and every track's poses and
        local matrices at the steps' pose times, one call per track (batch.Playback). The last
        PLAYBACKS_KEPT are kept: the same steps asked again (a query's answer, then its
        comparison; the world check's speeds after the playback check's) are played once."""
        key = (tuple(steps), time)
        pb = self._playbacks.pop(key, None)
        if pb is None:
            pb = Playback(self, steps, time)
            while len(self._playbacks) >= PLAYBACKS_KEPT:
                del self._playbacks[next(iter(self._playbacks))]
        self._playbacks[key] = pb               # the most recent last
        return pb

    def local_translation(self, track, time: int) -> Tuple[int, int, int]:
        """The exact translation words 12-14 of the local matrix, for every rotation kind (§4 step
        3.2): col3 lanes 0-2 of R ⊗ S are sums of signed zeros ending in + (+0·1 = +0), i.e. +0,
        so each word is f_add(+0, p_k): p_k bit for bit, a zero-exponent p_k becoming +0."""
        p = self.pose(track, time)
        f_add = self.ops.f_add
        return tuple(f_add(0, w) for w in p.pos)

    # ------------------------------------------------------------------ materials (§6)

    def uv(self, material, time: int) -> Tuple[int, int]:
        """(U bits, V bits) at min(time, last). material: a RefMaterial or a material object."""
        m = self._material(material)
        T = self.clamp(time)
        return m.u.evaluate(T)[0], m.v.evaluate(T)[0]

    def material_offsets(self, material, time: int, crop_u: int, crop_v: int) -> Tuple[int, int]:
        """The ccMaterial u16 fields +0x14, +0x16 (§6): (s16(f_to_int(U × F4096)) − s16(crop)) & 0xFFFF."""
        U, V = self.uv(material, time)
        return texture_offset(U, crop_u, self.ops), texture_offset(V, crop_v, self.ops)

    # ------------------------------------------------------------------ the direct light (docs/lights.md)

    def light_words(self, light, time: int) -> Tuple[Optional[int], ...]:
        """The light's 15 words at min(time, last), in docs/lights.md's order (position, rotation
        and colour 3 each, intensity, beam start and end, radius 1 and 2, radius 2 squared); None
        for a word whose channel is absent (SetAnmCtrlWork leaves it as it was)."""
        lt = light if isinstance(light, RefLight) else self.lights[light]
        T = self.clamp(time)
        out = []
        for c, w in zip(lt.channels, (3, 3, 3, 1, 1, 1, 1, 1)):
            out.extend(c.evaluate(T)[:w] if c is not None else (None,) * w)
        r2 = out[-1]
        out.append(None if r2 is None else self.ops.f_mul(r2, r2))
        return tuple(out)

    # ------------------------------------------------------------------ playback (§8, §10)

    def forward(self, time: int, step: int) -> playback.Forward:
        """_AnimateForward (§8.1): .time, .pose_at (None when nothing is evaluated), .ended."""
        return playback.forward(time, step, self.frames, self.loops)

    def passed_notes(self, time: int, step: int) -> List[playback.PassedNote]:
        """§10.4 reference rule: notes in delivery order with the ccAnmNote time field (§10.2)."""
        return playback.passed_notes(self.notes, time, step, self.frames)

    def forward_notes(self, time: int, step: int) -> List[Tuple[int, int]]:
        """(event, param) of the notes the step's DecodeFrameChunk reads, derived from forward()'s
        frame range rather than the passed_notes rule: a second route to the same list."""
        r = self.forward(time, step).read
        if r is None:
            return []
        old, new = r
        return [(n.event, n.param) for n in reversed(self.notes) if old < n.frame <= new]

    def frames_read(self, time: int, step: int) -> Optional[Tuple[int, int]]:
        """§8.3: the frames (first, last) whose records the step applies, or None."""
        r = self.forward(time, step).read
        return None if r is None else (r[0] + 1, r[1])

    def records_read(self, time: int, step: int) -> list:
        """§8.3: the per-frame records (F_Morpher, F_Note, F_Obj and the others) the step's
        DecodeFrameChunk applies, frames old + 1 … new, in file order. Empty when the frame does
        not change."""
        r = self.forward(time, step).read
        if r is None:
            return []
        old, new = r
        recs = [x for x in (*self.anime.morphs, *self.anime.notes, *self.anime.fobjs, *self.anime.others)
                if old < x.frame <= new]
        return sorted(recs, key=lambda x: x.offset)

    # ------------------------------------------------------------------ morph weights (§9.1)

    def morph_weights(self, frame: int, after_loop: bool = False) -> Dict[int, Tuple[Tuple[int, int], ...]]:
        """morpher -> pairs (target, weight bits) of its last F_Morpher record at a frame ≤ frame.

        DECISION: frame-0 records are excluded: the game never applies them (§2.1, §8.3), and the
        check only compares frames ≥ 1 (§9.1). after_loop=True models a later loop pass, where a
        morpher keeps the state of the previous pass until a record at a frame ≤ frame is read
        again (the state persists, §9.1), i.e. the last record of the whole chunk.
        """
        out = {}
        for mph, recs in self.morphs.items():
            best = None
            for r in recs:
                if 1 <= r.frame <= frame:
                    best = r
            if best is None and after_loop:
                for r in recs:
                    if 1 <= r.frame:
                        best = r
            if best is not None:
                out[mph] = tuple(best.pairs)
        return out

    # ------------------------------------------------------------------ F_Obj (§11)

    def obj_poses_at(self, time: int, after_loop: bool = False) -> Dict[int, object]:
        """§11 reference rule: object -> its last F_Obj record with 1 ≤ frame ≤ min(T, last) >> 8.
        after_loop=True keeps the previous pass's last record until one is read again (checks.md §7.5)."""
        f = self.clamp(time) >> 8
        out = {}
        for obj, recs in self._fobj_by_obj.items():
            best = None
            for r in recs:
                if 1 <= r.frame <= f:
                    best = r
            if best is None and after_loop:
                for r in recs:
                    if r.frame >= 1:
                        best = r
            if best is not None:
                out[obj] = best
        return out

    def fobj_pose(self, object: int, time: int, after_loop: bool = False):
        """The F_Obj record in force for `object` at `time`, or None (§11)."""
        return self.obj_poses_at(time, after_loop).get(object)

    def fobj_poses_read(self, time: int, f: playback.Forward, objects) -> Optional[Dict[int, object]]:
        """The pose-in-force rule of a step (§11, checks.md §7): which of `objects` the step from
        `time` (f = forward(time, step)) gives a new F_Obj pose. None when the step evaluates no
        other frame (the game reads no record and no coord is compared); else {object: its record
        in force at the new frame}, for each object whose record in force lies past the old frame
        (so this step read it), in the order of `objects`. An object left out keeps the pose in
        force before the step: the last record read for it persists."""
        old = time >> 8
        if f.pose_at is None or (f.pose_at >> 8) == old:
            return None
        in_force = self.obj_poses_at((f.pose_at >> 8) << 8)
        return {obj: in_force[obj] for obj in objects if obj in in_force and in_force[obj].frame > old}

    def restarts(self, f: playback.Forward, restart: bool) -> bool:
        """The restart rule (checks.md §6.2 step 9): a plan's restart applies only after a step
        that ends a play-once animation (f = forward(time, step)); the next step starts at 0."""
        return bool(f.ended and not self.loops and restart)

    def time_after(self, f: playback.Forward, restart: bool) -> int:
        """The time the next step of a plan starts from: 0 after a restart, else f.time."""
        return 0 if self.restarts(f, restart) else f.time

    def fobj_local_matrix(self, record) -> Tuple[int, ...]:
        """§11 step 1: T(pos)·sceVu0RotMatrix(rad)·S(scale) in EE arithmetic, 16 column-major words,
        rad_k = f_div(f_mul(PI, deg_k), DEG180)."""
        R = single_rotation(record.rot, self.ops, rot=_rot_fn(self.kernels, self.float_model))
        return local_exact(R, record.scale, record.pos, self.ops)

    def fobj_localtp(self, record) -> int:
        """§11 step 2: the transparency clamped to [0, 1]."""
        return clamp01(record.alpha, self.ops)

    def fobj_flag_bits(self, record, a1: int) -> int:
        """§11 step 3: bits 0-1 of object +0xA2 for coord +0xA1 = a1."""
        return fobj_flag_bits(record, a1, self.ops)


# ---------------------------------------------------------------------- shared pieces

def local_exact(R16: Sequence[int], scale: Sequence[int], pos: Sequence[int], o) -> Tuple[int, ...]:
    """§4 step 3 in EE arithmetic: L := R ⊗ S (S = diag(s, 1), other words +0), then col3 lane k
    := f_add(col3[k], p_k) (sceVu0TransMatrix)."""
    sx, sy, sz = scale
    S = (sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, sz, 0, 0, 0, 0, ONE)
    L = list(mul_matrix(R16, S, o))
    for k in range(3):
        L[12 + k] = o.f_add(L[12 + k], pos[k])
    return tuple(L)


def bits_to_doubles(words) -> np.ndarray:
    """eefloat.bits_to_double over an array of patterns, as float64: E = 0 a signed zero, E = 255
    a number, every other pattern its exact value (the 24-bit significand times a power of two)."""
    x = np.asarray(words, dtype=np.uint32)
    e = ((x >> 23) & 0xFF).astype(np.int64)
    v = np.ldexp(((x & 0x7FFFFF) | 0x800000).astype(np.float64), e - 150)
    v[e == 0] = 0.0
    return np.copysign(v, np.where(x & 0x80000000, -1.0, 1.0))


def local_doubles(rot, scale, pos) -> np.ndarray:
    """local_double at n times at once: rot (n, 3, 3) float64, scale and pos (n, 3) words; (n, 4, 4)."""
    s = bits_to_doubles(scale).reshape(-1, 3)
    out = np.zeros((s.shape[0], 4, 4), dtype=np.float64)
    out[:, :3, :3] = rot * s[:, None, :]
    out[:, :3, 3] = bits_to_doubles(pos).reshape(-1, 3)
    out[:, 3, 3] = 1.0
    return out


def local_double(R, scale: Sequence[int], pos: Sequence[int]) -> np.ndarray:
    """§4: the double version, element (r, c) = R[r][c]·s_c, translation p, bottom row (0,0,0,1)."""
    s = [bits_to_double(x) for x in scale]
    out = np.zeros((4, 4), dtype=np.float64)
    for r in range(3):
        for c in range(3):
            out[r][c] = R[r][c] * s[c]
        out[r][3] = bits_to_double(pos[r])
    out[3][3] = 1.0
    return out


def texture_offset(U: int, crop: int, o) -> int:
    """§6: (s16(f_to_int(f_mul(U, F4096))) − s16(crop)) & 0xFFFF (U is fs)."""
    return (_s16(o.f_to_int(o.f_mul(U, F4096))) - _s16(crop)) & 0xFFFF


def clamp01(alpha: int, o) -> int:
    """§11 step 2, localtp clamped to [0, 1].

    DECISION: modelled as the C clamp `if (a < 0) a = 0; else if (a > 1) a = 1;` compiled to
    c.lt.s / c.le.s, i.e. f_cmp: every E = 0 pattern (−0, denormal-looking words) compares equal to
    0 and is kept raw; below zero (incl. E = 255 negatives) gives +0; above 1.0 (incl. E = 255)
    gives 0x3F800000; 1.0 itself and everything in between is kept raw.
    """
    if o.f_cmp(alpha, 0) < 0:
        return 0
    if o.f_cmp(alpha, ONE) > 0:
        return ONE
    return alpha


def fobj_flag_bits(record, a1: int, o) -> int:
    """§11 step 3: bit 0 := flags bit 0; bit 1 := 1 unless the position is zero and +0xA1 bit 0 is set.

    DECISION: "the position is zero" is all three components comparing equal to 0 by f_cmp (so
    −0 and E = 0 patterns count as zero), the way a c.eq.s test would see them.
    """
    zero = all(o.f_cmp(p, 0) == 0 for p in record.pos)
    bit1 = 0 if (zero and (a1 & 1)) else 2
    return (record.flags & 1) | bit1
