"""Procedural brain-like 3D phantoms: the embedded default dataset of accelerated_seg.

The framework must run end to end (train, validate, infer) with nothing downloaded,
so it ships a generator instead of data. Each case is an analytic phantom defined in
world (RAS millimetre) space: an ellipsoidal head with a thin bright skull shell, brain
tissue inside, two dark "ventricles" near the centre (label 1) and one irregular bright
"lesion" (label 2). Contrast, bias field and noise vary per case so a small U-Net has to
learn the shapes rather than a fixed threshold.

Cases are rendered on different voxel grids of the same world-space definition
(isotropic, anisotropic, LPS-flipped, axis-permuted), evaluating the shapes at each
voxel centre's world coordinate, so the NIfTI affines are exact and the pipeline's
reorientation/resampling code is exercised on real geometry variation. The result is
written as ``imagesTr``/``labelsTr`` ``.nii.gz`` files plus a Medical Segmentation
Decathlon style ``dataset.json``.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.io import write_nifti
from accelerated_seg.data.phantom_folder import WRITING_MARKER, holds_the_phantoms  # data.prepare's from here
from accelerated_seg.files import file_in_the_way, write_text_atomically

LABELS = {0: "background", 1: "ventricles", 2: "lesion"}
MODALITY = {"0": "MRI"}  # the one image channel, as dataset.json names it

_DEFAULT_SIZE_MM = (96.0, 96.0, 72.0)


def _rotation(rng: np.random.Generator, max_deg: float) -> np.ndarray:
    """Random rotation matrix from three Euler angles in [-max_deg, max_deg]."""
    a, b, c = np.deg2rad(rng.uniform(-max_deg, max_deg, size=3))
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    rz = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])
    return rz @ ry @ rx


def _smooth_field(rng: np.random.Generator, n_terms: int, max_freq: float, amp: float):
    """Random low-frequency field f(p) = sum_k a_k cos(w_k . p + phi_k), |f| <= amp."""
    w = rng.normal(size=(n_terms, 3))
    w *= rng.uniform(0.5, 1.0, size=(n_terms, 1)) * max_freq / np.linalg.norm(w, axis=1, keepdims=True)
    a = rng.dirichlet(np.ones(n_terms)) * amp
    phi = rng.uniform(0, 2 * np.pi, size=n_terms)
    return lambda p: np.cos(p @ w.T + phi) @ a


def _ellipsoid_radius(p: np.ndarray, centre, radii, rot) -> tuple[np.ndarray, np.ndarray]:
    """Normalised ellipsoid radius of world points p (N, 3), and the unit direction in its frame."""
    q = ((p - centre) @ rot) / radii  # rot columns are the ellipsoid axes in world space
    r = np.linalg.norm(q, axis=-1)
    return r, q / np.maximum(r, 1e-9)[..., None]


def make_phantom(rng: np.random.Generator, size_mm=_DEFAULT_SIZE_MM):
    """Sample one case's phantom; returns ``render(p) -> (image, label)`` for world points p (N, 3).

    The phantom is centred near the world origin (the centre of the field of view).
    Structure sizes scale with the field of view so small test volumes stay sensible.
    """
    half = np.asarray(size_mm, float) / 2
    s = (np.prod(size_mm) / np.prod(_DEFAULT_SIZE_MM)) ** (1 / 3)
    head_c = rng.uniform(-2, 2, size=3) * s
    head_r = half * rng.uniform(0.78, 0.88, size=3)
    shell = rng.uniform(3.0, 4.5) * s / head_r.mean()  # skull thickness in normalised radius
    brain_r = head_r * (1 - shell)

    # Lateral-ventricle-like pair: mirrored about the midline, elongated front-to-back.
    vents = []
    for side in (-1, 1):
        c = head_c + np.array([side * rng.uniform(5, 8), rng.uniform(-4, 4), rng.uniform(0, 6)]) * s
        r = np.array([rng.uniform(4, 6), rng.uniform(7, 10), rng.uniform(5, 8)]) * s
        vents.append((c, r, _rotation(rng, 15)))

    # Lesion: rejection-sample a centre well inside the brain and away from the ventricles,
    # so it is (almost) never clipped; any residual overlap goes to the ventricles below.
    les_R = rng.uniform(6, 14) * s
    les_r = les_R * rng.uniform(0.8, 1.2, size=3)
    reach = 1.35 * les_r.max() + 2 * s
    for _ in range(1000):
        les_c = head_c + rng.uniform(-1, 1, size=3) * (brain_r - reach)
        inside = np.linalg.norm((les_c - head_c) / (brain_r - reach)) < 1
        apart = all(np.linalg.norm(les_c - c) > reach + r.max() + 2 * s for c, r, _ in vents)
        if inside and apart:
            break
    les_rot = _rotation(rng, 180)
    les_bump = _smooth_field(rng, 4, 3.0, 0.3)  # irregular outline: radius * (1 +- 0.3)

    # Per-case contrast (FLAIR-like: dark ventricles, bright lesion), bias, texture, noise.
    tissue = rng.uniform(80, 120)
    i_vent = tissue * rng.uniform(0.25, 0.45)
    i_les = tissue * rng.uniform(1.35, 1.7)
    i_skull = tissue * rng.uniform(1.6, 2.2)
    texture = _smooth_field(rng, 6, 2 * np.pi / (20 * s), 0.06)  # ~20 mm blobs, +-6 %
    bias = _smooth_field(rng, 3, np.pi / (2 * half.max()), 0.2)  # < 1 period over the FOV, +-20 %
    sigma = tissue * rng.uniform(0.02, 0.05)
    noise_seed = int(rng.integers(2**32))

    def render(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r_head, _ = _ellipsoid_radius(p, head_c, head_r, np.eye(3))
        brain = r_head <= 1 - shell
        r_les, d = _ellipsoid_radius(p, les_c, les_r, les_rot)
        lesion = brain & (r_les <= 1 + les_bump(d))
        vent = np.zeros(len(p), bool)
        for c, r, rot in vents:
            vent |= _ellipsoid_radius(p, c, r, rot)[0] <= 1
        vent &= brain

        label = np.zeros(len(p), np.uint8)
        label[lesion] = 2
        label[vent] = 1  # ventricles win any overlap
        img = np.zeros(len(p))
        img[r_head <= 1] = i_skull
        img[brain] = tissue * (1 + texture(p[brain]))
        img[label == 2] = i_les
        img[label == 1] = i_vent
        img *= 1 + bias(p)
        img += np.random.default_rng(noise_seed).normal(0, sigma, size=len(p))
        return img.astype(np.float32), label

    return render


def _grid(kind: str, size_mm, spacing_mm: float, aniso: bool) -> tuple[np.ndarray, tuple[int, ...]]:
    """Affine and shape of a voxel grid covering size_mm (RAS world), centred on the origin.

    ``kind`` is "RAS", "LPS" (first two axes flipped, as DICOM-derived NIfTI often are)
    or "PERM" (array axes stored as world z, x, y). Anisotropic grids have 2x thicker slices
    along world z.
    """
    sp = np.array([spacing_mm, spacing_mm, spacing_mm * (2 if aniso else 1)])
    n = np.maximum(np.round(np.asarray(size_mm) / sp).astype(int), 1)
    perm, sign = {"RAS": ((0, 1, 2), (1, 1, 1)), "LPS": ((0, 1, 2), (-1, -1, 1)),
                  "PERM": ((2, 0, 1), (1, 1, 1))}[kind]
    affine = np.zeros((4, 4))
    affine[3, 3] = 1
    for a, (w, sg) in enumerate(zip(perm, sign)):
        affine[w, a] = sg * sp[w]
        affine[w, 3] = -sg * (n[w] - 1) / 2 * sp[w]  # voxel 0 sits at the low (or high) FOV edge
    return affine, tuple(int(n[w]) for w in perm)


def _render_on_grid(render, affine: np.ndarray, shape) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate a phantom at the world coordinates of every voxel centre of a grid."""
    ijk = np.stack(np.meshgrid(*[np.arange(k) for k in shape], indexing="ij"), -1).reshape(-1, 3)
    img, lab = render(ijk @ affine[:3, :3].T + affine[:3, 3])
    return img.reshape(shape), lab.reshape(shape)


def _geometry(i: int, n_train: int) -> tuple[str, bool]:
    """Grid kind of case i: every 3rd anisotropic, every 4th non-RAS (LPS/permuted alternating).

    Counted from the first validation case, so the validation split (the last cases) starts
    with an anisotropic and then a non-RAS case.
    """
    j = i - n_train
    aniso = j % 3 == 0
    kind = ("LPS" if (j - 1) // 4 % 2 == 0 else "PERM") if j % 4 == 1 else "RAS"
    return kind, aniso


def write_synthetic_dataset(out_dir: str | Path, num_cases: int = 16, num_validation: int = 4,
                            seed: int = 0, size_mm: tuple[float, float, float] = (96.0, 96.0, 72.0),
                            spacing_mm: float = 1.5) -> Path:
    """Write ``num_cases`` phantom cases and an MSD style dataset.json into ``out_dir``.

    Args:
        out_dir: target directory; created if missing. A phantom dataset already there is
            rewritten; a folder whose dataset.json describes another dataset is refused.
        num_cases: total number of cases.
        num_validation: the last ``num_validation`` cases form the "validation" list; the
            rest are "training". With >= 2 the validation set contains an anisotropic and a
            non-RAS case. With 0 there is no "validation" list: an empty one would be a split
            the dataset prescribes (validating on nothing), which wins over the run's own
            (``data.validation_fraction``, ``data.num_folds``).
        seed: cases are a deterministic function of (seed, case index).
        size_mm: field of view in world millimetres (x, y, z); structures scale with it.
        spacing_mm: isotropic voxel size; anisotropic cases use 2x along world z.

    Returns:
        Path of the written dataset.json (written last, so its presence marks completion).

    Example:
        >>> import tempfile
        >>> p = write_synthetic_dataset(tempfile.mkdtemp(), num_cases=3, num_validation=1,
        ...                             size_mm=(48.0, 48.0, 36.0), spacing_mm=3.0)
        >>> p.name
        'dataset.json'
    """
    if num_cases < 1:
        raise DataError(f"the synthetic dataset needs at least one case, got {num_cases}; raise the case count "
                        f"(synth --cases)")
    if not 0 <= num_validation <= num_cases:
        raise DataError(f"the synthetic dataset needs 0 <= validation cases <= cases, got {num_validation} of "
                        f"{num_cases}; lower the validation count (synth --validation) or raise the case count")
    if not 0 <= seed < 2**32:  # numpy's seed range; else its ValueError traceback at the first case
        raise DataError(f"the synthetic dataset's seed must be >= 0 and < 2**32, got {seed} (synth --seed)")
    out = Path(out_dir)
    json_path = out / "dataset.json"
    if blocking := file_in_the_way(out):  # else the first mkdir's OSError traceback
        where = "is a file" if blocking == out else f"cannot be made: {blocking} is a file"
        raise DataError(f"{out} {where}; give a folder for the synthetic dataset")
    if wrong := _entry_of_the_wrong_kind(out):  # else an OSError traceback, after the marker and folders were made
        raise DataError(f"{out} cannot hold the phantoms: {wrong}; give an empty or new folder")
    if json_path.is_file() and (theirs := _not_written_here(json_path)):
        raise DataError(f"{json_path} {theirs}; writing the phantoms there would replace it and its case files: give "
                        f"an empty or new folder")
    # Marks the folder as ours while dataset.json is absent, so a rerun after a kill may finish it.
    writing = out / WRITING_MARKER
    if (not json_path.is_file() and not writing.exists()
            and any(any((out / sub).glob("*.nii*")) for sub in ("imagesTr", "labelsTr"))):
        raise DataError(f"{out} holds imagesTr/labelsTr files but no dataset.json of the phantoms; writing them "
                        f"there would replace those files: give an empty or new folder")
    (out / "imagesTr").mkdir(parents=True, exist_ok=True)
    (out / "labelsTr").mkdir(parents=True, exist_ok=True)
    # The earlier phantoms' files, of which those this dataset does not rewrite go (below): a rewrite with
    # fewer cases left them beside it, and predict of imagesTr/ segmented them too (sixty-seventh session).
    # After a kill mid-write (no dataset.json, the marker there) every phantom-named file is the earlier's.
    earlier = _earlier_phantoms(out, json_path, writing)
    if writing.exists():  # a write stopped: a kill skips the removal of the file it was writing
        _remove_killed_writes(out)
    writing.touch()
    json_path.unlink(missing_ok=True)  # a stale manifest must not describe half-rewritten files

    n_train = num_cases - num_validation
    entries, geometry = [], {}
    for i in range(num_cases):
        name = f"case_{i:03d}.nii.gz"
        kind, aniso = _geometry(i, n_train)
        affine, shape = _grid(kind, size_mm, spacing_mm, aniso)
        img, lab = _render_on_grid(make_phantom(np.random.default_rng([seed, i]), size_mm), affine, shape)
        for arr, sub in ((img, "imagesTr"), (lab, "labelsTr")):
            header = nib.Nifti1Image(arr, affine).header
            header.set_qform(affine, code=1)  # scanner coordinates, as a scanner's export says
            header.set_sform(affine, code=1)
            write_nifti(out / sub / name, arr, affine, header)  # a kill never leaves a truncated case
        entries.append({"image": f"./imagesTr/{name}", "label": f"./labelsTr/{name}"})
        geometry[name] = {"orientation": "".join(nib.aff2axcodes(affine)), "shape": list(shape),
                          "spacing_mm": [float(v) for v in nib.affines.voxel_sizes(affine)]}

    manifest = {
        "name": "SyntheticBrain",
        "description": "Procedural brain-like phantoms (accelerated_seg embedded default data): "
                       "head with skull shell, dark ventricles (1), irregular bright lesion (2).",
        "tensorImageSize": "3D",
        "modality": MODALITY,
        "labels": _declared_labels(),
        "numTraining": n_train,
        "numValidation": num_validation,
        "training": entries[:n_train],
        **({"validation": entries[n_train:]} if num_validation else {}),
        "test": [],
        "seed": seed,
        "generator": {"module": __name__, "num_cases": num_cases, "num_validation": num_validation,
                      "size_mm": [float(v) for v in size_mm], "spacing_mm": float(spacing_mm),
                      "cases": geometry},
    }
    for name in earlier - set(geometry):  # before the manifest, so that a kill here is finished by a rerun
        for sub in ("imagesTr", "labelsTr"):
            (out / sub / name).unlink(missing_ok=True)
    write_text_atomically(json_path, json.dumps(manifest, indent=2))
    writing.unlink()
    return json_path


def ensure_synthetic_dataset(out_dir: str | Path, num_cases: int = 16, num_validation: int = 4, seed: int = 0,
                             size_mm: tuple[float, float, float] = (96.0, 96.0, 72.0),
                             spacing_mm: float = 1.5) -> Path:
    """:func:`write_synthetic_dataset`'s phantoms in ``out_dir``, written only where the same phantoms are not
    there whole already (:func:`holds_the_phantoms`); returns the path of their dataset.json. A rewrite gives
    every case file a new modification time, and the preprocessing cache then builds every case again,
    keeping the arrays of before: examples/estimator.py, run twice into one --out, grew its cache by all 12
    cases each time (until the ninety-third session). Called by several processes at once (each of a launch,
    two jobs given one folder), one writes and the others wait for it, then find the phantoms whole
    (``_one_writer_at_a_time``)."""
    with _one_writer_at_a_time(Path(out_dir)):
        if not holds_the_phantoms(out_dir, num_cases, num_validation, seed, size_mm, spacing_mm):
            write_synthetic_dataset(out_dir, num_cases=num_cases, num_validation=num_validation, seed=seed,
                                    size_mm=size_mm, spacing_mm=spacing_mm)
    return Path(out_dir) / "dataset.json"


#: The file in a folder of the phantoms whose lock the process writing them holds (``_one_writer_at_a_time``).
WRITER_LOCK = ".phantoms.lock"


@contextlib.contextmanager
def _one_writer_at_a_time(out: Path) -> Iterator[None]:
    """Inside, this process alone of those asking for ``out`` (an exclusive ``flock`` on its ``WRITER_LOCK``, which
    the kernel drops however the process ends): docs/python_api.md's first block, launched on 2 processes, had both
    write the phantoms at once, and one died in the other's removal of the marker (``FileNotFoundError: ...
    '.phantoms_being_written'``; helper h153's walk, the hundred-and-twenty-eighth session). The lock file stays,
    hidden: removed, a process waiting on it would go on beside one that made it anew. Unguarded where the folder
    cannot be made (a file in its way: the write's own refusal says so), or the filesystem has no ``flock``."""
    try:
        import fcntl

        out.mkdir(parents=True, exist_ok=True)
        handle = open(out / WRITER_LOCK, "ab")
    except (ImportError, OSError):
        yield
        return
    with handle:  # its close drops the lock
        with contextlib.suppress(OSError):  # no flock here (Lustre without -o flock, some FUSE mounts)
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _declared_labels() -> dict[str, str]:
    return {str(value): name for value, name in LABELS.items()}


def refuse_labels_beside_the_phantoms(labels, folder: str | Path) -> None:
    """Refuse ``data.labels`` (check's ``--labels``) given for the embedded phantoms written to ``folder``, which
    declare their own classes. Said until the hundred-and-twenty-eighth session as any dataset.json's refusal,
    "<folder>/dataset.json: labels are declared by dataset.json; drop the labels argument (data.labels) or edit
    'labels' in dataset.json", a file not yet written and rewritten by the run, after torch's and MONAI's imports
    (8-11 s; run_folder.check_before_the_imports says it before them now).

    Raises:
        DataError: naming data.labels, the phantoms' classes and the ways on.
    """
    if labels is not None:
        classes = ", ".join(f"{value} {name}" for value, name in LABELS.items())
        raise DataError(f"data.labels gives the classes of a CSV (or of a datalist that declares none), and "
                        f"data.dataset is synthetic: the embedded phantoms, which the run writes to {folder}, declare "
                        f"their own ({classes}). Drop data.labels, or give data.dataset your own dataset")


def phantoms_without_cases(folder: str | Path, binarize: bool = False, labels=None):
    """The phantoms' channel and classes as the dataset.json that ``write_synthetic_dataset`` writes into
    ``folder`` declares them, with no case: what ``accelerated-seg check --config`` builds the network
    and loss for before a run has written the phantoms (until the eighty-seventh session it checked
    nothing there, and passed a network or a class weight that training then refused as it started).

    Raises:
        DataError: ``labels`` (data.labels) given, which training refuses beside that dataset.json's
            own declaration: check passed it here ("by construction") until a review of that session
            (``refuse_labels_beside_the_phantoms``).
    """
    from .cases import Manifest
    from .formats.dataset_json import parse_channels
    from .labels import parse_labels

    json_path = Path(folder) / "dataset.json"
    refuse_labels_beside_the_phantoms(labels, folder)
    labels, label_values = parse_labels(_declared_labels(), f'{json_path}: "labels"', binarize)
    return Manifest(root=Path(folder), labels=labels, channels=parse_channels({"modality": MODALITY}, json_path),
                    training=[], validation=[], label_values=label_values, binarized=binarize, source_file=json_path)


def _earlier_phantoms(out: Path, json_path: Path, writing: Path) -> set[str]:
    """The file names of the phantoms already in ``out``: those its dataset.json lists, or after a kill
    mid-write (the ``writing`` marker there, no dataset.json) every file named as a phantom."""
    if json_path.is_file():
        return set(json.loads(json_path.read_text()).get("generator", {}).get("cases", {}))
    if not writing.exists():
        return set()
    return {path.name for sub in ("imagesTr", "labelsTr") for path in (out / sub).glob("case_[0-9][0-9][0-9].nii.gz")}


# What a killed write of the phantoms leaves (write_nifti's and write_text_atomically's temporary names, of
# the phantoms' own file names): none is a user's file, and with its fresh uuid no later write reuses it
_KILLED_WRITE = re.compile(r"^\.(case_[0-9]{3}\.nii\.gz\.[0-9a-f]{32}\.tmp\.nii\.gz|dataset\.json\.[0-9a-f]{32}\.tmp)$")


def _remove_killed_writes(out: Path) -> None:
    """Delete the hidden temporaries a killed write of the phantoms left in ``out``: the case file (or
    dataset.json) being written, which a rerun never swept (ninety-second session's probe)."""
    for folder in (out, out / "imagesTr", out / "labelsTr"):
        for entry in folder.iterdir():
            if _KILLED_WRITE.match(entry.name) and entry.is_file():
                entry.unlink(missing_ok=True)


def _entry_of_the_wrong_kind(out: Path) -> str | None:
    """What in ``out`` is a folder where the phantoms write a file, or a file where they make a folder."""
    if (out / "dataset.json").exists() and not (out / "dataset.json").is_file():
        return f"{out / 'dataset.json'} is a folder, where their dataset.json goes"
    for sub in ("imagesTr", "labelsTr"):
        if (out / sub).exists() and not (out / sub).is_dir():
            return f"{out / sub} is a file, where their {sub}/ folder goes"
    return None


def _not_written_here(json_path: Path) -> str | None:
    """Why a dataset.json was not written by this generator (and may not be rewritten); None where it was.
    One that is no JSON at all (a user's, mid-edit: the phantoms' is written atomically) was said to
    describe another dataset (ninety-second session's probe)."""
    try:
        document = json.loads(json_path.read_text(encoding="utf-8"))
    except ValueError as error:  # UnicodeDecodeError too
        return f"is not the phantoms' dataset.json: it cannot be read as JSON ({error})"
    return None if isinstance(document, dict) and document.get("name") == "SyntheticBrain" else \
        "describes another dataset"
