#!/usr/bin/env python3
"""Write facescan's sample captures (capture format v1, see FORMAT.md) from reference face data.

usage: scripts/make-samples.py DATA_DIR OUT_DIR        (DATA_DIR: the ICT-FaceKit and MediaPipe face data, see samples/README.md)

Python 3 standard library only; deterministic (one seeded random.Random per sample).

For every sample OUT_DIR/<name>/ gets the capture, `truth.obj` (the ground-truth face in metres,
the shape every frame was made from), `expected-gate.json` (frames read / accepted / rejected by
reason under FORMAT.md's quality gate with default settings, computed here from the frames as
written) and the licence of the data it was derived from. OUT_DIR/README.md and LICENSES.md
describe them.

Each frame = truth + (expression, bad expression frames only) + zero-mean low-frequency shape
jitter + per-vertex Gaussian sensor noise of 0.5 mm x (d / 0.4)^2 (d = true camera distance; bad
frames get twice that). The jitter coefficients are centred over the accepted frames, so the
mean shape of the accepted frames is the truth up to the sensor noise.
"""
import base64
import json
import math
import os
import random
import shutil
import struct
import sys

# ---------------------------------------------------------------------------------------------
# Quality gate (FORMAT.md defaults): the first failing reason counts, in this order.

MIN_DISTANCE, MAX_DISTANCE = 0.3, 0.5
MIN_AMBIENT = 500.0
MAX_JAW, MAX_SMILE, MAX_BROW = 0.4, 0.5, 0.5
REASONS = ('distance', 'tracking', 'lighting', 'expression')


def frame_distance(fr):
    """The `distance` key, else the length of the transform's translation, else None."""
    if 'distance' in fr:
        return float(fr['distance'])
    t = fr.get('transform')
    if t is None:
        return None
    return math.sqrt(t[12] ** 2 + t[13] ** 2 + t[14] ** 2)


def gate(fr):
    """Rejection reason of one frame (as written), or None when it is accepted."""
    d = frame_distance(fr)
    if d is not None and not (MIN_DISTANCE <= d <= MAX_DISTANCE):
        return 'distance'
    if fr.get('trackingState', 'normal') != 'normal':
        return 'tracking'
    if 'ambientIntensity' in fr and fr['ambientIntensity'] <= MIN_AMBIENT:
        return 'lighting'
    bs = fr.get('blendShapes')
    if bs is not None:
        smile = (bs.get('mouthSmileLeft', 0.0) + bs.get('mouthSmileRight', 0.0)) / 2
        if bs.get('jawOpen', 0.0) >= MAX_JAW or smile >= MAX_SMILE or bs.get('browInnerUp', 0.0) >= MAX_BROW:
            return 'expression'
    return None


def expected_gate(frames):
    rejected = {r: 0 for r in REASONS}
    accepted = 0
    for fr in frames:
        r = gate(fr)
        if r is None:
            accepted += 1
        else:
            rejected[r] += 1
    return {'read': len(frames), 'accepted': accepted, 'rejected': rejected}


# ---------------------------------------------------------------------------------------------
# Mesh files


def read_obj(path):
    """OBJ `v` / `vt` / `f` → (positions [[x,y,z]], flat triangle indices, per-vertex uvs or None)."""
    V, VT, F, uv_of = [], [], [], {}
    consistent = True
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == 'v':
                V.append([float(x) for x in w[1:4]])
            elif w[0] == 'vt':
                VT.append([float(x) for x in w[1:3]])
            elif w[0] == 'f':
                corners = []
                for c in w[1:]:
                    p = c.split('/')
                    v = int(p[0]) - 1
                    t = int(p[1]) - 1 if len(p) > 1 and p[1] else -1
                    if uv_of.setdefault(v, t) != t:
                        consistent = False
                    corners.append(v)
                for k in range(1, len(corners) - 1):
                    F += [corners[0], corners[k], corners[k + 1]]
    uvs = None
    if VT and consistent and len(uv_of) == len(V) and all(t >= 0 for t in uv_of.values()):
        uvs = [VT[uv_of[i]] for i in range(len(V))]
    return V, F, uvs


def write_obj(path, V, F, comment):
    with open(path, 'w') as f:
        f.write(f'# {comment}\n')
        for v in V:
            f.write('v %.7f %.7f %.7f\n' % (v[0], v[1], v[2]))
        for i in range(0, len(F), 3):
            f.write(f'f {F[i] + 1} {F[i + 1] + 1} {F[i + 2] + 1}\n')


def add(V, D, w):
    """V + w·D (lists of [x,y,z])."""
    return [[a[0] + w * b[0], a[1] + w * b[1], a[2] + w * b[2]] for a, b in zip(V, D)]


def sub(A, B):
    return [[a[0] - b[0], a[1] - b[1], a[2] - b[2]] for a, b in zip(A, B)]


def signed_normal_z(V, F):
    """Sum of the unnormalised triangle normals' z: > 0 when the surface faces +z, wound CCW."""
    s = 0.0
    for i in range(0, len(F), 3):
        a, b, c = V[F[i]], V[F[i + 1]], V[F[i + 2]]
        s += (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return s


# ---------------------------------------------------------------------------------------------
# Number formatting


def num(x, decimals):
    """Shortest decimal text of x rounded to `decimals` places (no trailing zeros, no -0)."""
    s = '%.*f' % (decimals, x)
    if '.' in s:
        s = s.rstrip('0').rstrip('.')
    if s in ('-0', ''):
        s = '0'
    return s


class Raw(str):
    """Pre-formatted JSON text, spliced in by `dumps`."""


def dumps(value):
    """Compact JSON keeping dict key order; `Raw` values are written verbatim."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return '{' + ','.join(json.dumps(k) + ':' + dumps(v) for k, v in value.items()) + '}'
    if isinstance(value, list):
        return '[' + ','.join(dumps(v) for v in value) + ']'
    return json.dumps(value)


def vertices_text(V):
    """Flat vertex array, metres rounded to 1 µm (6 decimals), far below the 0.5 mm noise."""
    return Raw('[' + ','.join(num(c, 6) for v in V for c in v) + ']')


def vertices_base64(V):
    return base64.b64encode(struct.pack('<%df' % (3 * len(V)), *[c for v in V for c in v])).decode('ascii')


# ---------------------------------------------------------------------------------------------
# Frames

GOOD = 'good'


class Plan:
    """What one frame should be: its kind (what makes it bad, if anything) and metadata choices."""

    def __init__(self, kind, **opts):
        self.kind = kind
        self.opts = opts


def transform(rng, d, yaw_sd=0.08):
    """Column-major 4×4 face→camera: a small yaw, a small lateral offset, translation length d."""
    yaw = rng.gauss(0, yaw_sd)
    c, s = math.cos(yaw), math.sin(yaw)
    tx, ty = rng.gauss(0, 0.02), rng.gauss(0, 0.02)
    tz = -math.sqrt(d * d - tx * tx - ty * ty)
    T = [c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, tx, ty, tz, 1]
    return [round(x, 6) + 0.0 for x in T]


def metadata(rng, i, plan):
    """The frame's metadata as (key, value) pairs, and the true camera distance for the noise."""
    o = plan.opts
    kind = plan.kind
    if 'd' in o:
        d = o['d']
    elif kind == 'far':
        d = rng.uniform(0.52, 0.7)
    elif kind == 'near':
        d = rng.uniform(0.2, 0.28)
    else:
        d = rng.uniform(0.32, 0.48)
    items = [('timestamp', round(i / 30.0, 4))]
    if not o.get('no_transform'):
        items.append(('transform', transform(rng, d)))
    if 'distance' in o:
        items.append(('distance', o['distance']))
        d = o['distance']
    tracking = o.get('tracking', 'normal')
    if tracking != 'normal' or not o.get('omit_tracking', rng.random() < 0.3):
        items.append(('trackingState', tracking))
    if not o.get('no_light'):
        light = o.get('light', round(rng.uniform(650, 1600), 1))
        items.append(('ambientIntensity', light))
    if not o.get('no_blendshapes'):
        # Good frames carry small coefficient noise (not applied to the geometry, so the truth
        # stays the mean shape); expression frames carry their real weights.
        bs = {k: round(rng.uniform(0, 0.04), 4) for k in
              ('eyeBlinkLeft', 'eyeBlinkRight', 'jawOpen', 'mouthSmileLeft', 'mouthSmileRight', 'browInnerUp')}
        bs.update(o.get('blend', {}))
        keys = list(bs)
        rng.shuffle(keys)
        items.append(('blendShapes', {k: bs[k] for k in keys}))
    return items, (d if d is not None else 0.4)


def make_frames(rng, truth, plans, expression_geometry, jitter_modes, jitter_sd, noise_mm, encode):
    """Builds the frame dicts (keys in a shuffled order per frame) for `plans`."""
    metas = []
    for i, plan in enumerate(plans):
        items, d = metadata(rng, i, plan)
        metas.append((items, d))
    # Jitter coefficients, centred over the accepted frames (zero-mean where it matters).
    coeffs = [[rng.gauss(0, jitter_sd) for _ in jitter_modes] for _ in plans]
    accepted = [k for k, (items, _) in enumerate(metas) if gate(dict(items)) is None]
    for m in range(len(jitter_modes)):
        mean = sum(coeffs[k][m] for k in accepted) / max(1, len(accepted))
        for row in coeffs:
            row[m] -= mean
    frames = []
    for i, plan in enumerate(plans):
        items, d = metas[i]
        V = [list(v) for v in truth]
        if plan.kind == 'expression':
            V = expression_geometry(V, plan.opts['blend'])
        for m, mode in enumerate(jitter_modes):
            V = mode(V, coeffs[i][m])
        sigma = noise_mm * 1e-3 * (d / 0.4) ** 2 * (1 if plan.kind == GOOD else 2)
        V = [[c + rng.gauss(0, sigma) for c in v] for v in V]
        items = items + [encode(V)]
        order = list(range(len(items)))
        rng.shuffle(order)
        frames.append({items[k][0]: items[k][1] for k in order})
    return frames


def standard_plans(rng, good, extra_bad):
    """Good frames, every special case and every bad kind, shuffled (special ones included)."""
    bad = [
        Plan('far'), Plan('far'),
        Plan('near'), Plan('near'),
        Plan('dark', light=round(rng.uniform(60, 400), 1)),
        Plan('dark', light=500),                                  # exactly the limit: rejected
        Plan('limited', tracking='limited'),
        Plan('notAvailable', tracking='notAvailable'),
        Plan('expression', blend={'jawOpen': round(rng.uniform(0.55, 0.9), 3)}),
        Plan('expression', blend={'mouthSmileLeft': round(rng.uniform(0.6, 0.9), 3),
                                  'mouthSmileRight': round(rng.uniform(0.6, 0.9), 3)}),
        Plan('expression', blend={'mouthSmileLeft': 0.5, 'mouthSmileRight': 0.5}),  # mean exactly 0.5
        Plan('expression', blend={'browInnerUp': round(rng.uniform(0.6, 0.9), 3)}),
        # Several failures: the first in gate order counts.
        Plan('far', tracking='limited', light=220.0),            # → distance
        Plan('limited', tracking='limited', light=300.0),        # → tracking
        Plan('dark', light=150.0, blend={'jawOpen': 0.7}),         # → lighting (geometry stays neutral)
    ] + extra_bad
    special = [
        Plan(GOOD, d=0.6, distance=0.45),   # transform says too far; the distance key overrides it
        Plan(GOOD, no_transform=True),      # distance not checked
        Plan(GOOD, no_light=True),          # light not checked
        Plan(GOOD, no_blendshapes=True),    # expression not checked
        Plan(GOOD, omit_tracking=True),     # tracking defaults to normal
    ]
    plans = bad + special + [Plan(GOOD) for _ in range(good)]
    rng.shuffle(plans)
    return plans


# ---------------------------------------------------------------------------------------------
# Samples


def ict_expression(data, neutral):
    names = ['jawOpen', 'mouthSmile_L', 'mouthSmile_R', 'browInnerUp_L', 'browInnerUp_R']
    deltas = {n: sub(read_obj(os.path.join(data, 'ict-face', n + '.obj'))[0], neutral) for n in names}

    def apply(V, blend):
        w = {'jawOpen': blend.get('jawOpen', 0.0),
             'mouthSmile_L': blend.get('mouthSmileLeft', 0.0), 'mouthSmile_R': blend.get('mouthSmileRight', 0.0),
             'browInnerUp_L': blend.get('browInnerUp', 0.0), 'browInnerUp_R': blend.get('browInnerUp', 0.0)}
        for n, x in w.items():
            if x:
                V = add(V, deltas[n], x)
        return V
    return apply


def ict_sample(data, out, name, seed, identity, jitter_names, good, ndjson):
    rng = random.Random(seed)
    ict = os.path.join(data, 'ict-face')
    neutral, F, uvs = read_obj(os.path.join(ict, 'neutral.obj'))
    truth = neutral
    for n, w in identity:
        truth = add(truth, sub(read_obj(os.path.join(ict, n + '.obj'))[0], neutral), w)
    modes = []
    for n in jitter_names:
        delta = sub(read_obj(os.path.join(ict, n + '.obj'))[0], neutral)
        modes.append(lambda V, c, delta=delta: add(V, delta, c))
    extra = [Plan('distanceKey', d=0.4, distance=0.55)] if ndjson else []   # distance key rejects a good transform
    plans = standard_plans(rng, good, extra)
    if ndjson:
        encode = lambda V: ('verticesBase64', vertices_base64(V))
    else:
        encode = lambda V: ('vertices', vertices_text(V))
    frames = make_frames(rng, truth, plans, ict_expression(data, neutral), modes, 0.05, 0.5, encode)
    topology = {'triangleIndices': F, 'textureCoordinates': Raw('[' + ','.join(num(c, 6) for uv in uvs for c in uv) + ']')}
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    mix = ', '.join(f'{n}:{w}' for n, w in identity)
    if ndjson:
        header = {'topology': topology, 'settings': {'quality': 'low'}, 'version': 1,
                  'generator': {'name': 'scripts/make-samples.py', 'seed': seed, 'note': 'unknown key: ignored'},
                  'format': 'facescan-capture'}
        with open(os.path.join(d, 'capture.ndjson'), 'w') as f:
            f.write(dumps(header) + '\n')
            for i, fr in enumerate(frames):
                f.write(dumps(fr) + '\n')
                if i == len(frames) // 2:
                    f.write('\n')   # an empty line between frames is skipped
        capture = 'capture.ndjson'
    else:
        doc = {'format': 'facescan-capture', 'version': 1, 'topology': topology, 'frames': frames}
        with open(os.path.join(d, 'capture.json'), 'w') as f:
            f.write(dumps(doc) + '\n')
        capture = 'capture.json'
    write_obj(os.path.join(d, 'truth.obj'), truth, F, f'ground truth of {name}: ICT neutral + {mix}, metres')
    shutil.copyfile(os.path.join(ict, 'LICENSE'), os.path.join(d, 'LICENSE'))
    return dict(name=name, capture=capture, plans=plans, frames=frames, vertices=len(truth),
                triangles=len(F) // 3, source=f'ICT-FaceKit neutral + {mix}', seed=seed,
                encoding='NDJSON, `verticesBase64`' if ndjson else 'JSON document, `vertices` arrays',
                licence='MIT (ICT-FaceKit)')


def ict_arkit_sample(data, out, name, seed, identity, jitter_names, good):
    """A capture at ARKit's size: the ICT face on the 1 220-vertex topology of
    scripts/ict-arkit-topology.json (every coarse vertex is a vertex of the dense face, so each
    frame samples the dense surface, as a tracker's vertices do); `truth.obj` is the dense face."""
    rng = random.Random(seed)
    ict = os.path.join(data, 'ict-face')
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ict-arkit-topology.json')) as f:
        topo = json.load(f)
    keep, F = topo['denseVertex'], topo['triangles']
    neutral, dense_F, _ = read_obj(os.path.join(ict, 'neutral.obj'))
    truth = neutral
    for n, w in identity:
        truth = add(truth, sub(read_obj(os.path.join(ict, n + '.obj'))[0], neutral), w)
    pick = lambda V: [V[i] for i in keep]
    modes = []
    for n in jitter_names:
        delta = pick(sub(read_obj(os.path.join(ict, n + '.obj'))[0], neutral))
        modes.append(lambda V, c, delta=delta: add(V, delta, c))
    dense_expression = ict_expression(data, neutral)
    full = list(truth)

    def expression(V, blend):
        # The dense face's expression deltas at the kept vertices.
        zero = [[0.0, 0.0, 0.0] for _ in full]
        moved = pick(dense_expression(zero, blend))
        return add(V, moved, 1.0)

    plans = standard_plans(rng, good, [])
    frames = make_frames(rng, pick(truth), plans, expression, modes, 0.05, 0.5,
                         lambda V: ('verticesBase64', vertices_base64(V)))
    topology = {'triangleIndices': F}
    doc = {'format': 'facescan-capture', 'version': 1, 'topology': topology, 'frames': frames}
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'capture.json'), 'w') as f:
        f.write(dumps(doc) + '\n')
    mix = ', '.join(f'{n}:{w}' for n, w in identity)
    write_obj(os.path.join(d, 'truth.obj'), truth, dense_F,
              f'ground truth of {name}: ICT neutral + {mix}, dense (9 409 vertices), metres')
    shutil.copyfile(os.path.join(ict, 'LICENSE'), os.path.join(d, 'LICENSE'))
    return dict(name=name, capture='capture.json', plans=plans, frames=frames, vertices=len(keep),
                triangles=len(F) // 3, source=f'ICT-FaceKit neutral + {mix} on a 1 220-vertex topology', seed=seed,
                encoding='JSON document, `verticesBase64`, no UVs', licence='MIT (ICT-FaceKit)')


def mediapipe_sample(data, out, seed):
    rng = random.Random(seed)
    mp = os.path.join(data, 'mediapipe-face')
    V, F, uvs = read_obj(os.path.join(mp, 'canonical_face_model.obj'))
    truth = [[c / 100.0 for c in v] for v in V]   # centimetres → metres
    # FORMAT.md wants +z out of the face and CCW seen from outside. The canonical model already
    # is (its nose is at +z and Σ normal·z > 0 with consistent winding); flip only if not.
    flipped = False
    if signed_normal_z(truth, F) < 0:
        F = [x for i in range(0, len(F), 3) for x in (F[i], F[i + 2], F[i + 1])]
        flipped = True
    ys = sorted(v[1] for v in truth)
    y_lo, y_hi = ys[0], ys[-1]
    height = y_hi - y_lo

    def expression(V, blend):
        # No blend-shape targets for this topology: smooth synthetic deformations.
        jaw = blend.get('jawOpen', 0.0)
        smile = (blend.get('mouthSmileLeft', 0.0) + blend.get('mouthSmileRight', 0.0)) / 2
        brow = blend.get('browInnerUp', 0.0)
        out_v = []
        for x, y, z in V:
            t = (y - y_lo) / height                       # 0 at the chin, 1 at the forehead
            low = max(0.0, min(1.0, (0.35 - t) / 0.35))   # lower face weight
            high = max(0.0, min(1.0, (t - 0.7) / 0.3))    # forehead weight
            y -= jaw * 0.02 * low
            x *= 1 + smile * 0.08 * low
            y += brow * 0.006 * high
            out_v.append([x, y, z])
        return out_v

    # Low-frequency jitter: small anisotropic scalings about the centroid.
    def scale_mode(axis):
        def mode(V, c):
            return [[v[k] * (1 + c) if k == axis else v[k] for k in range(3)] for v in V]
        return mode

    plans = standard_plans(rng, 12, [Plan(GOOD, distance=0.5)])   # exactly the limit: accepted
    frames = make_frames(rng, truth, plans, expression, [scale_mode(0), scale_mode(1), scale_mode(2)], 0.004, 0.5,
                         lambda V: ('vertices', vertices_text(V)))
    topology = {'textureCoordinates': Raw('[' + ','.join(num(c, 6) for uv in uvs for c in uv) + ']'), 'triangleIndices': F}
    doc = {'version': 1, 'frames': frames, 'settings': {'smoothingIterations': 1}, 'format': 'facescan-capture',
           'topology': topology}
    d = os.path.join(out, 'mediapipe')
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'capture.json'), 'w') as f:
        f.write(dumps(doc) + '\n')
    write_obj(os.path.join(d, 'truth.obj'), truth, F, 'ground truth of mediapipe: MediaPipe canonical face model, metres')
    shutil.copyfile(os.path.join(mp, 'LICENSE'), os.path.join(d, 'LICENSE'))
    return dict(name='mediapipe', capture='capture.json', plans=plans, frames=frames, vertices=len(truth),
                triangles=len(F) // 3, source='MediaPipe canonical face model (cm → m)', seed=seed,
                encoding='JSON document, `vertices` arrays, `frames` before `topology`',
                licence='Apache-2.0 (Google MediaPipe)', flipped=flipped)


# ---------------------------------------------------------------------------------------------
# README


def kind_counts(plans):
    out = {}
    for p in plans:
        out[p.kind] = out.get(p.kind, 0) + 1
    return out


def readme(samples):
    L = ['# facescan samples', '',
         'Generated by `scripts/make-samples.py DATA_DIR samples/` (Python standard library, seeded, deterministic)',
         'from reference face data the project did not make; each folder keeps the licence of its source.',
         'Every capture follows the capture format v1 (metres, +y up, +z out of the face, CCW from outside).', '',
         'Per folder: the capture, `truth.obj` (the ground-truth face in metres), `expected-gate.json` (what the',
         "quality gate must report with default settings: frames read, accepted, rejected by first failing reason",
         'in the order distance → tracking → lighting → expression), `LICENSE`.', '',
         'Each frame = truth + (expression geometry, expression frames only) + zero-mean low-frequency shape jitter',
         '(centred over the accepted frames) + Gaussian sensor noise of 0.5 mm × (d / 0.4)² per coordinate (twice that',
         'in bad frames). Good frames report small blend-shape coefficients (≤ 0.04) that are not applied to the',
         'geometry, so the mean of the accepted frames is the truth up to the sensor noise.', '']
    for s in samples:
        g = s['expected']
        k = kind_counts(s['plans'])
        L += [f"## {s['name']}/", '',
              f"- `{s['capture']}`: {s['encoding']}; {s['source']}; {s['vertices']} vertices, {s['triangles']} triangles, seed {s['seed']}.",
              f"- Licence: {s['licence']}, see `{s['name']}/LICENSE`."]
        if s['name'] == 'mediapipe':
            L.append('- Orientation: the canonical model already faces +z with counter-clockwise winding seen from +z '
                     '(866 of its 898 triangles have a +z normal, no edge traversed twice in one direction), so the '
                     f"triangles are kept as they are{' (flipped: it was clockwise)' if s.get('flipped') else ''}; "
                     '+y is up (y follows the texture v, x follows u). The model is slightly turned (its nose tip '
                     'is at x ≈ −1.5 cm) and is kept as it is. Its UVs are per vertex (`f a/a b/b c/c`). Expression frames use synthetic smooth deformations '
                     '(jaw drop, mouth widening, brow raise) since the model has no blend-shape targets.')
        L += [f"- Frames: {g['read']} in total — planned kinds: " + ', '.join(f'{n} {c}' for n, c in sorted(k.items())) + '.',
              '- Bad frames: far (distance 0.52–0.7 m), near (0.2–0.28 m), dark (ambientIntensity ≤ 500, one exactly 500),',
              '  tracking `limited` and `notAvailable`, expression (jawOpen ≥ 0.4; smile mean ≥ 0.5, one exactly 0.5;',
              '  browInnerUp ≥ 0.5), and three with several failures (far+limited+dark → distance, limited+dark →',
              '  tracking, dark+jawOpen → lighting).',
              '- Special good frames: one whose `distance` key (0.45) overrides a transform 0.6 m away, one without',
              '  `transform`, one without `ambientIntensity`, one without `blendShapes`, one without `trackingState`.']
        if s['name'] == 'ict-identity-ndjson':
            L += ['- Extra: a frame whose `distance` key (0.55) rejects a transform 0.4 m away; the header has `topology`',
                  '  first, `settings` `{"quality":"low"}` and an unknown key `generator` (ignored); one empty line',
                  '  between frames (skipped).']
        if s['name'] == 'ict-arkit':
            L += ['- ARKit\'s size: the 1 220 vertices and 2 082 triangles of `scripts/ict-arkit-topology.json` (made by',
                  '  `scripts/make-arkit-topology.py`: the ICT neutral face decimated with quadric collapses that keep vertex',
                  '  positions, so every vertex lies on the dense face). `truth.obj` is the dense face (9 409 vertices); the',
                  '  default quality refines the capture to 10 000 vertices, the path a phone\'s capture takes.']
        if s['name'] == 'mediapipe':
            L += ['- Extra: a frame with `distance` exactly 0.5 (accepted); `settings` `{"smoothingIterations":1}`.']
        r = g['rejected']
        L += [f"- **Expected gate (defaults): read {g['read']}, accepted {g['accepted']}, rejected distance {r['distance']},"
              f" tracking {r['tracking']}, lighting {r['lighting']}, expression {r['expression']}.**", '']
    return '\n'.join(L)


LICENSES = """# Licences of the sample data

| sample | derived from | licence | text |
|---|---|---|---|
| ict-neutral/ | ICT-FaceKit face model (USC Institute for Creative Technologies) | MIT | ict-neutral/LICENSE |
| ict-identity-ndjson/ | ICT-FaceKit face model (USC Institute for Creative Technologies) | MIT | ict-identity-ndjson/LICENSE |
| ict-arkit/ | ICT-FaceKit face model (USC Institute for Creative Technologies) | MIT | ict-arkit/LICENSE |
| mediapipe/ | MediaPipe canonical face model (Google, mediapipe/modules/face_geometry/data/canonical_face_model.obj) | Apache-2.0 | mediapipe/LICENSE |

Modifications (Apache-2.0 §4(b)): the MediaPipe model was converted from centimetres to metres; the
captures add synthetic per-frame noise, shape jitter and deformations, written by scripts/make-samples.py.
The ICT meshes were cut to the face area, triangulated and moved to metres in a face frame before that
(see the data's README), then combined with identity weights and noise as described in README.md.
"""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split('\n\n')[1])
    data, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    samples = [
        ict_sample(data, out, 'ict-neutral', 11, [('identity001', 0.5)], ['identity002', 'identity003'], 16, False),
        ict_sample(data, out, 'ict-identity-ndjson', 23, [('identity004', 0.8), ('identity007', -0.4)],
                   ['identity002', 'identity003'], 12, True),
        mediapipe_sample(data, out, 37),
        ict_arkit_sample(data, out, 'ict-arkit', 41, [('identity005', 0.7), ('identity008', -0.3)],
                         ['identity002', 'identity003'], 10),
    ]
    for s in samples:
        s['expected'] = expected_gate(s['frames'])
        with open(os.path.join(out, s['name'], 'expected-gate.json'), 'w') as f:
            f.write(json.dumps(s['expected'], indent=2) + '\n')
        print(f"{s['name']}: {json.dumps(s['expected'])}", file=sys.stderr)
    with open(os.path.join(out, 'README.md'), 'w') as f:
        f.write(readme(samples))
    with open(os.path.join(out, 'LICENSES.md'), 'w') as f:
        f.write(LICENSES)


if __name__ == '__main__':
    main()
