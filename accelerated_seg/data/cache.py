"""Preprocess every case once; keep the result uncompressed and memory-mappable.

Decoding a .nii.gz runs at ~130-290 MB/s per core and resampling costs more, so doing it every epoch
(or every patch) starves the GPU. Each case is preprocessed once into

    <cache_dir>/<dataset>-<hash>/<fingerprint>/<case id>.<source>.image.npy     float32 (C, X, Y, Z)
                                           /<case id>.<source>.label.npy     uint8   (X, Y, Z)
                                           /<case id>.<source>.locations.npz up to 10,000 voxel indices per class
                                           /<case id>.<paths>.json  geometry, class voxel counts, source fingerprint

and a case table (HF ``datasets``, Arrow, memory-mapped: id, paths, shapes, spacing, class
locations, fingerprints) is written per case list. Patches are then sliced straight out of the
memory-mapped arrays, so resident memory does not grow with the number of cases and a dataset
larger than RAM still trains. A later run with the same inputs and settings reuses everything;
different settings (or another number of classes, whose voxel counts and locations are kept per
class) land in another folder; a changed input file is preprocessed again, into arrays named by its
new source fingerprint, so a job still training on the old ones (whose table names them) keeps them.

Building is split by ``shard=(index, count)`` so N processes do the work once between them; nothing
here knows about processes beyond that.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shutil
import uuid
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import numpy as np

from ..dropped_interrupts import between_files, interrupts_kept
from ..files import (NAME_MAX, by_a_utf8_name, is_utf8, remove_stale_temporaries, replace_atomically, stored_bytes,
                     sync_directory, sync_folder, write_text_atomically)
from .cache_versions import SETTINGS_FILE, bytes_under, record_source
from .errors import DataError
from .fingerprint import case_key, source_fingerprint, source_fingerprint_or_none
from .manifest import Case
from .preprocess import PreprocessSettings, case_dict, preprocess

# nnU-Net samples at most 10,000 voxels per class to draw foreground patch centres from.
MAX_LOCATIONS_PER_CLASS = 10_000
# The case table is written a batch of rows at a time, each about this many bytes of locations.
_TABLE_BATCH_BYTES = 64 * 2 ** 20
# The characters of a source fingerprint in the arrays' names (fingerprint.files_fingerprint)
_SOURCE_LENGTH = 16


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "accelerated_seg"


def _cannot_write(error: OSError) -> str:
    """What could not be written, and why, in the words of the error (numpy's short write names no file)."""
    where = error.filename or "a file of the cache"
    return f"{where} cannot be written ({error.strerror or error})"


class PreprocessedCache:
    """The cache folder for one set of preprocessing settings.

    Args:
        root: cache root (``data.cache_dir``).
        source: the dataset (its dataset.json, folder or CSV): datasets never share a folder, even
            when their case ids are the same.
        settings: the preprocessing; its fingerprint names the folder.
        num_classes: classes after label mapping (for the class-location arrays); part of the folder's
            name too, so that a dataset cached for 2 classes is not reused for 3 (whose cases lacked
            the third class's locations: a KeyError, or a class never drawn as a patch centre).
    """

    def __init__(self, root: str | Path, source: str | Path, settings: PreprocessSettings, num_classes: int,
                 ignore_label: bool = True):
        self.settings = settings
        self.num_classes = num_classes
        # Whether the labels may hold the ignore label, stored as class index num_classes (Manifest.ignore_index):
        # the build refuses that index where the dataset declares none. True: not said, accepted as before.
        self.ignore_label = ignore_label
        # Absolute: the case table records the arrays' paths, and a relative root (or a literal "~")
        # recorded paths that another working directory could not find (seventieth session).
        root = Path(root).expanduser().absolute()
        self.source = source = Path(source).resolve()
        dataset = f"{source.parent.name if source.is_file() else source.name}-" \
                  f"{hashlib.sha1(stored_bytes(str(source))).hexdigest()[:8]}"
        self.dir = Path(root) / dataset / hashlib.sha1(
            f"{settings.fingerprint()}|classes {num_classes}".encode()).hexdigest()[:16]

    def paths(self, case: Case, source: str | None = None) -> dict[str, Path]:
        """The case's files: its ``json``, and the arrays of the source version ``source`` (the json's
        when None). Each version's arrays have names of their own: a rebuild rewrote them in place
        while another job trained on them, whose case table gave the old shapes and foreground
        locations (an index error, or patches centred by another volume's labels; seventieth session)."""
        meta, built = self._meta(case)
        return {**self._arrays(case, (built or "") if source is None else source), "json": meta}

    def _arrays(self, case: Case, source: str) -> dict[str, Path]:
        return {kind: self.dir / f"{case.id}.{source}.{kind}" for kind in ("image.npy", "label.npy", "locations.npz")}

    def _meta_path(self, case: Case) -> Path:
        """The json a build writes for the case, last: it names the source version its arrays are."""
        return self.dir / f"{case_key(case)}.json"

    def _meta(self, case: Case) -> tuple[Path, str | None]:
        """The case's json and the source version it names (None: never built, or unreadable).

        Until the eighty-sixth session a case's json was named by its id alone (``<id>.json``), which
        two Datasets of other images over the same labels shared. Such a json is this case's where the
        source version it names is that of these very files (the fingerprint holds their resolved
        paths): its arrays are reused. A cache built before was otherwise built again whole, beside
        itself (twice the disk), and a complete cache on a read-only mount could not be used at all.
        The json of before wins over this code's where it alone names these files as they are now: an
        older install sharing the cache built the case again after its files changed, and this code's
        json of the old files had the case built once more, said "changed", its arrays written again
        under the names that install's running job reads them by."""
        meta = self._meta_path(case)
        source = _recorded_source(meta)
        earlier = self.dir / f"{case.id}.json"
        # the files' fingerprint taken only where a json of before names another version than this code's
        before = _recorded_source(earlier)
        if before is not None and before != source and before == source_fingerprint_or_none(case):
            return earlier, before
        return meta, source

    def _built_source(self, case: Case) -> str | None:
        """The source version the case was last built from (its json's), None if it never was."""
        return self._meta(case)[1]

    def changed_since_built(self, cases: Sequence[Case]) -> int:
        """How many of ``cases`` were built before from files that have changed since (their json names
        another source version): ``build`` makes them again, beside the arrays of before."""
        built = ((case, self._built_source(case)) for case in cases)
        return sum(source is not None and source != source_fingerprint(case) for case, source in built)

    def other_versions(self) -> tuple[int, int] | None:
        """(how many, bytes): the dataset's other preprocessed versions beside this one (other settings
        or classes), which no run deletes: another experiment may still train on them. None when they
        cannot be counted: another run building one renames and replaces its files meanwhile, and a
        note must not stop this run (a review found FileNotFoundError in a walk beside a build)."""
        try:
            versions = [entry.path for entry in os.scandir(self.dir.parent)
                        if entry.is_dir() and entry.path != str(self.dir) and not entry.name.startswith(".")]
            return len(versions), sum(bytes_under(folder) for folder in versions)
        except OSError:
            return None

    def is_current(self, case: Case) -> bool:
        """Built from the files as they are now, and every array there (one deleted by hand made every
        later run fail in training)."""
        source = self._built_source(case)
        return source is not None and source == source_fingerprint(case) and all(
            path.is_file() for path in self._arrays(case, source).values())

    def is_built(self, case: Case) -> bool:
        """Built, from the files as they are now or as they were (its json and that version's arrays there): what
        ``write_table`` needs. A file replaced while its case was built leaves the case built but not current."""
        source = self._built_source(case)
        return source is not None and all(path.is_file() for path in self._arrays(case, source).values())

    def build(self, cases: Sequence[Case], shard: tuple[int, int] = (0, 1), workers: int = 1) -> int:
        """Preprocess this shard's cases that are missing or stale; returns how many were built.

        Args:
            cases: all cases; this call takes every ``count``-th from ``index`` (``shard``).
            shard: (index, count), e.g. (rank, number of processes).
            workers: processes to spread this shard over (decoding and resampling are CPU bound).
        """
        index, count = shard
        # Every case's names, not this shard's: a rank whose share fits built it whole (hours, on a large dataset)
        # before the one holding the case refused it. A case built already has names that fit.
        cases = list(cases)
        self._refuse_names_too_long(cases)
        todo = [case for case in cases[index::count] if not self.is_current(case)]
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            if index == 0:  # one sweeper is enough; what a killed build left would otherwise stay forever
                for folder in (self.dir, self.dir / "tables"):
                    remove_stale_temporaries(folder)
            settings = json.dumps(self.settings.to_dict(), indent=1)
            written = self.dir / SETTINGS_FILE
            if not written.is_file() or written.read_text() != settings:  # a read-only cache, complete, is used
                write_text_atomically(written, settings)
            if index == 0:  # which dataset this is, for `accelerated-seg cache` once it is moved or deleted
                record_source(self.dir.parent, self.source)
            self._build_cases(todo, workers)
        except OSError as error:  # not PermissionError alone: a read-only mount, a full disk (seventy-third session)
            raise DataError(f"data.cache_dir: {_cannot_write(error)}, and {len(todo)} case(s) must be preprocessed "
                            f"there: give data.cache_dir a folder this user can write, with room for the "
                            f"preprocessed arrays (a complete cache may be read-only)") from None
        return len(todo)

    def _refuse_names_too_long(self, todo: Sequence[Case]) -> None:
        """A DataError naming the first case whose id makes a cache file's name longer than a file name can
        be. The arrays' names add 31 characters to the id (a label file's name), so an id of 225 failed at
        its first write with "File name too long", and the advice to give data.cache_dir a folder one can
        write, with room (an audit's probe)."""
        for case in todo:
            # the arrays' names alone: the json's (case_key: the id and 13 characters) is shorter, and its hash
            # resolves the case's files, which every rank would do for every case
            names = [path.name for path in self._arrays(case, "0" * _SOURCE_LENGTH).values()]
            longest = max(names, key=lambda name: len(stored_bytes(name)))
            if (length := len(stored_bytes(longest))) > NAME_MAX:
                raise DataError(f"case {case.id!r} ({case.label}): its preprocessed arrays would be named "
                                f"{longest[:40]}... ({length} bytes), longer than a file name can "
                                f"be ({NAME_MAX}); the case's id is its label file's name (or a CSV's id column): "
                                f"give it an id of at most {len(stored_bytes(case.id)) - length + NAME_MAX} "
                                f"bytes (rename the label file, or set the id)")

    def _build_cases(self, todo: list[Case], workers: int) -> None:
        if workers > 1 and len(todo) > 1:
            # Threads, as MONAI's CacheDataset uses: gzip decoding (zlib) and torch's resampling release
            # the GIL. Processes would cost seconds of imports each (measured: 12.5 s vs 4.7 s cold for
            # 12 cases), and forking after OpenMP has run can deadlock.
            with ThreadPoolExecutor(min(workers, len(todo))) as pool:
                list(pool.map(self._build_case, todo))
        else:
            # a Ctrl-C as a file read on this thread is closed, inside a __del__, raised, not dropped: the build,
            # and training after it, went on to the end (dropped_interrupts.py)
            with interrupts_kept():
                for case in between_files(todo):
                    self._build_case(case)

    def _build_case(self, case: Case) -> None:
        # Taken before the files are read: taken after, a file replaced meanwhile (a sync of the dataset
        # beside the build) left the old file's arrays under the new one's fingerprint, current for good.
        # Taken before, such a case is built again by the next run.
        source = source_fingerprint(case)
        # The label's values read as they are, mapped to class indices by _class_indices: mapped here
        # (MapLabelValued), a value the map does not list was left as it was, so that a BraTS label's stray 3
        # was stored as class 3, the 4s' class, where no check could see it (a review's probe).
        raw = dataclasses.replace(self.settings, label_map=None, binarize=False)
        self._write_case(case, preprocess(("image", "label"), raw)(case_dict(case)), source)

    def _write_case(self, case: Case, data: dict, source: str) -> None:
        paths = {**self._arrays(case, source), "json": self._meta_path(case)}
        image = data["image"].numpy().astype(np.float32, copy=False)
        label = self._class_indices(case, data["label"].numpy()[0])
        # Seeded by the case alone: from the source fingerprint, a touch, a checkout or a copy to
        # node-local scratch drew other foreground locations from the same labels (seventieth session).
        rng = np.random.default_rng(int(hashlib.sha1(stored_bytes(case.id)).hexdigest()[:8], 16))
        locations, voxels = {}, []
        for c in range(1, self.num_classes):
            where = np.flatnonzero(label == c)
            voxels.append(int(where.size))
            if where.size > MAX_LOCATIONS_PER_CLASS:
                where = np.sort(rng.choice(where, MAX_LOCATIONS_PER_CLASS, replace=False))
            locations[f"class_{c}"] = where.astype(np.int64)
        _atomic(paths["image.npy"], lambda f: np.save(f, image))
        _atomic(paths["label.npy"], lambda f: np.save(f, label))
        _atomic(paths["locations.npz"], lambda f: np.savez(f, **locations))
        meta = {"id": case.id, "shape": list(label.shape), "channels": image.shape[0],
                "spacing": [float(s) for s in data["image"].pixdim[:3]], "class_voxels": voxels,
                "source": source}
        # Written last: its presence with the right source fingerprint marks the case complete.
        _atomic(paths["json"], lambda f: f.write(json.dumps(meta).encode()))

    def _class_indices(self, case: Case, values: np.ndarray) -> np.ndarray:
        """The label's raw values as class indices (uint8, as stored), refusing values no class (nor the ignore
        label, one past them, where the dataset has one) is: the pre-flight checks refuse such files, but a
        label replaced after its check and before this build (a fix of the dataset beside a run) was stored as
        it was: 256 as 0 (uint8), 7 of 3 classes as a class the network has no output for, and, where the
        values are mapped (data.labels, BraTS' 0, 1, 2, 4), a value the map does not list as the class whose
        index it is. Binarized, every whole value >= 0 is a class (0 or 1)."""
        # Comparisons of one byte a voxel (min and max none): no float copy of a large volume
        if self.settings.binarize:  # whole values >= 0, rounded a slice at a time
            label = (values != 0).astype(np.uint8)
            bad = None if values.min() >= 0 and all((plane == np.round(plane)).all() for plane in values) else \
                (values < 0) | (values != np.round(values))
        elif not self.settings.label_map:  # the class indices themselves
            top = self.num_classes - 1 + self.ignore_label
            label = values.astype(np.uint8)
            bad = None if values.min() >= 0 and values.max() <= top and (label == values).all() else \
                (values < 0) | (values > top) | (label != values)
        else:  # each listed value to its class; one listed nowhere was left as it was by MapLabelValued
            label, bad = np.zeros(values.shape, dtype=np.uint8), np.ones(values.shape, dtype=bool)
            for value, index in self.settings.label_map:
                listed = values == value
                label[listed] = index
                bad[listed] = False
            bad = bad if bad.any() else None
        if bad is not None:
            found = np.unique(values[bad])
            raise DataError(f"case {case.id!r}: {case.label} holds label value(s) {found[:5].tolist()} that no class "
                            f"of the {self.num_classes} is, though the pre-flight checks passed it: the file changed "
                            f"since it was checked; run again, which checks it as it is now")
        return label

    def write_table(self, cases: Sequence[Case]) -> Path:
        """Write (or reuse) the case table for these cases; every case must be built."""
        import datasets

        metas = [json.loads(self.paths(case)["json"].read_text()) for case in cases]
        # The folder too: the rows hold the arrays' absolute paths, so a cache copied (to node-local scratch)
        # or moved reused the table of its first place, which read the arrays there, or failed at the first
        # batch with FileNotFoundError once they were gone (an audit's probe).
        rows = [f"{m['id']}|{m['source']}" for m in metas]
        key = hashlib.sha1(stored_bytes("\n".join([str(self.dir), *rows]))).hexdigest()[:16]
        table_dir = self.dir / "tables" / key
        if table_dir.is_dir():
            return table_dir
        # The table of the same rows written before the folder was part of the key, where its arrays are this
        # folder's: a complete cache on a read-only mount failed after the upgrade, its table there unused.
        before = self.dir / "tables" / hashlib.sha1(stored_bytes("\n".join(rows))).hexdigest()[:16]
        if before.is_dir() and all(Path(os.fsdecode(path)).parent == self.dir
                                   for path in self.load_table(before)["image"]):
            return before
        # Flat voxel indices as int32 where every case's fit (below 2^31 voxels, 1290^3: the default
        # data.max_voxels is 512^3), not as int64: half the table on disk (benchmarks/case_table_memory.py).
        index_type = "int32" if all(math.prod(m["shape"]) < 2 ** 31 for m in metas) else "int64"
        # datasets.Sequence, not List: the declared floor, datasets 3.0, has no List (5.x reads either)
        locations_type = datasets.Sequence(datasets.Sequence(datasets.Value(index_type)))
        rows = [{"id": case.id, **{kind: str(path) for kind, path in self.paths(case, meta["source"]).items()},
                 **{key: meta[key] for key in ("shape", "spacing", "class_voxels", "source")}}
                for case, meta in zip(cases, metas)]
        # Arrow's strings are UTF-8: a name holding a byte that is not (a cache in a folder named in Latin-1, a case
        # so named) ended training in a UnicodeEncodeError traceback until the hundred-and-twenty-third session.
        # Such a table holds its names as their bytes, as the OS stores them, which np.load takes as the path (the
        # loader's reads, numpy's bytes); every other table's columns are strings, as before.
        as_bytes = not all(is_utf8(row[key]) for row in rows for key in ("id", "image.npy", "label.npy"))
        name = datasets.Value("binary" if as_bytes else "string")
        features = datasets.Features({
            "id": name, "image": name, "label": name,
            "shape": datasets.Sequence(datasets.Value("int64")),
            "spacing": datasets.Sequence(datasets.Value("float64")),
            "class_voxels": datasets.Sequence(datasets.Value("int64")), "class_locations": locations_type,
            "source": datasets.Value("string")})
        # Streamed to disk a batch of rows at a time, each batch about _TABLE_BATCH_BYTES of locations.
        # Built whole in memory (Dataset.from_dict) until the eightieth session, it took 6.5 times its size
        # on disk, 1.6 GB for 500 cases of 14 classes, growing with cases x classes (benchmarks/
        # case_table_memory.py); datasets' from_generator is its way to a table larger than memory.
        row_bytes = max(1, self.num_classes - 1) * MAX_LOCATIONS_PER_CLASS * np.dtype(index_type).itemsize
        # Names of their own: another job sharing the cache may be writing the same table. The generator's
        # files go to a scratch folder beside it (datasets' own cache would be ~/.cache/huggingface),
        # named so that a killed writer's is swept (files.remove_stale_temporaries).
        unique = uuid.uuid4().hex
        partial = table_dir.with_name(f".{table_dir.name}.{unique}.partial")
        scratch = table_dir.with_name(f".{table_dir.name}-rows.{unique}.partial")
        datasets.disable_progress_bars()
        try:
            # pyarrow opens a file by a path in UTF-8 alone: in a cache whose path is not (a folder named in Latin-1)
            # both are written by the tables folder's /proc/self/fd name (files.by_a_utf8_name), in the cache as
            # any other. Written in the temporary folder and moved in, in the hundred-and-twenty-third session, a
            # table was copied there from another file system, a temporary folder full or gone ended training in a
            # traceback or said to give data.cache_dir room, and a killed writer's copy stayed there for good.
            table_dir.parent.mkdir(parents=True, exist_ok=True)
            with by_a_utf8_name(table_dir.parent) as tables:
                datasets.Dataset.from_generator(
                    _table_rows, features=features, cache_dir=os.path.join(tables, scratch.name), writer_batch_size=max(
                        1, _TABLE_BATCH_BYTES // row_bytes),
                    gen_kwargs={"rows": rows, "classes": self.num_classes, "index_type": index_type,
                                "as_bytes": as_bytes},
                ).save_to_disk(os.path.join(tables, partial.name))
        except (OSError, datasets.exceptions.DatasetGenerationError) as error:
            shutil.rmtree(partial, ignore_errors=True)
            # datasets wraps what the rows' generation raised: a full disk, a locations file unreadable (a
            # DataError of _table_rows' own)
            cause = error.__cause__ or error.__context__ or error \
                if isinstance(error, datasets.exceptions.DatasetGenerationError) else error
            if not isinstance(cause, OSError):
                raise cause from None  # the reader's own error, as before the table was streamed
            # a complete cache, read-only, and a split it has no table for; a full disk
            raise DataError(f"data.cache_dir: {_cannot_write(cause)}, and this split's case table must be written "
                            f"there (every case is preprocessed already; writing it takes twice its size a "
                            f"moment): give data.cache_dir a folder this user can write, with room, or train on a "
                            f"split the cache has a table for") from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        sync_folder(partial)  # whole on the disk before it takes the name (files.py)
        try:
            partial.rename(table_dir)
        except OSError:
            if not table_dir.is_dir():
                raise
            shutil.rmtree(partial)  # that job was first; its table holds the same rows
        sync_directory(table_dir.parent)
        return table_dir

    @staticmethod
    def load_table(table_dir: str | Path):
        """The case table, memory-mapped, rows as numpy arrays."""
        import datasets

        if is_utf8(str(table_dir)):
            return datasets.load_from_disk(str(table_dir)).with_format("numpy")
        # pyarrow takes a path as UTF-8 or as its bytes: load_from_disk raised UnicodeEncodeError in a folder named
        # in Latin-1, so each of the table's files is memory-mapped by its bytes (write_table)
        state = json.loads((Path(table_dir) / "state.json").read_text(encoding="utf-8"))
        parts = [datasets.Dataset.from_file(stored_bytes(str(Path(table_dir) / file["filename"])))
                 for file in state["_data_files"]]
        return (datasets.concatenate_datasets(parts) if len(parts) > 1 else parts[0]).with_format("numpy")


def _table_rows(rows: list[dict], classes: int, index_type: str, as_bytes: bool = False):
    """The case table's rows, each with its foreground locations read from its locations.npz as it is
    written (``write_table``; module level and plain arguments, which datasets hashes to name its files);
    ``as_bytes``: the id and the arrays' paths as their bytes (``write_table``)."""
    name = stored_bytes if as_bytes else str
    for row in rows:
        try:
            with np.load(row["locations.npz"]) as npz:
                locations = [npz[f"class_{c}"].astype(index_type) for c in range(1, classes)]
        # Gone or damaged since the case was built (a cleanup beside the run, a disk's fault): the table's
        # writing is not at fault ("cannot be written ... with room" misled, a review found)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
            said = (error.strerror if isinstance(error, OSError) and error.strerror
                    else f"{type(error).__name__}: {error}")
            raise DataError(f"{row['locations.npz']} cannot be read ({said}): delete {row['json']} and run again, "
                            f"which preprocesses the case anew") from None
        yield {"id": name(row["id"]), "image": name(row["image.npy"]), "label": name(row["label.npy"]),
               "shape": row["shape"], "spacing": row["spacing"], "class_voxels": row["class_voxels"],
               "class_locations": locations, "source": row["source"]}


def _recorded_source(meta: Path) -> str | None:
    """The source version a case's json names; None where there is none, or it cannot be read (built as new)."""
    try:
        return json.loads(meta.read_text()).get("source")
    except (OSError, ValueError):
        return None



def _atomic(path: Path, write) -> None:
    """Write through a temporary file and rename, so a killed run never leaves half a file; the
    temporary name is unique, so jobs sharing the cache never write into each other's."""
    def write_binary(temporary: Path) -> None:
        with open(temporary, "wb") as f:
            write(f)

    replace_atomically(path, write_binary)
