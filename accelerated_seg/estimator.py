"""nobrainer-style Python API over the same pieces the command line uses.

    from accelerated_seg.estimator import Dataset, Segmentation

    pairs = [("sub-01_T1w.nii.gz", "sub-01_mask.nii.gz"), ...]
    data = Dataset.from_files(pairs, block_shape=(128, 128, 128), n_classes=2).batch(4).binarize().augment()
    loader = data.loader()            # the training loop's own patch pipeline, in this process
    model = Segmentation("unet").fit(data, epochs=50)       # the one training loop
    label_image = model.predict("sub-02_T1w.nii.gz")        # on the input's grid

Each call returns a new ``Dataset`` (like nobrainer's and tf.data's builders), so a base dataset can be
specialised several ways. Nothing here re-implements data handling: the builder holds a ``Manifest``
and a ``DataConfig``, which are exactly what ``accelerated-seg train`` reads from a YAML file.

This module is ``Segmentation``; ``Dataset`` is estimator_dataset's (imported here, so both come from one place),
and the pieces either shares are estimator_settings (keywords), estimator_predict_checks (predict's and evaluate's
arguments), estimator_launch, estimator_fine_tuning, estimator_arrays and estimator_saved_model.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import json
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import nibabel as nib
import numpy as np
from nibabel.spatialimages import SpatialImage

from .config import (Config, ConfigError, DataConfig, OptimConfig, TrainConfig, check_network_name,
                     check_values, did_you_mean, is_whole_number)
from .data.errors import DataError
from .data.labels import as_class_indices
from .data.manifest import Manifest
from .data.prepare import cache_root
from .data.splits import ways_to_validation_cases
from .data.workers import refuse_unguarded_main
from .estimator_arrays import array_grid_warning, checked_affine, checked_channels
from .estimator_dataset import EXAMPLE, Dataset, check_it_has_training_cases
from .estimator_fine_tuning import check_fine_tuning, named_as_its_start
from .estimator_interrupted import (InterruptedFit, give_back_an_import_lock_left_held, run_info_written,
                                    same_run_info)
from .interrupts_between_imports import interrupts_between_imports
from .estimator_launch import (ESTIMATOR_PRECISION, check_an_epoch_holds_a_batch, check_the_master_port,
                              check_the_network_fits_the_blocks, fit_in_launched_process, gpus_to_launch,
                              interrupt_of_the_launch, launch_precision, port_to_launch_on,
                              preempted_summary_of_the_launch, preemption_sent_on, signal_handlers_kept,
                              steps_for_epochs, summary_written_since, torch_elastic_files_in)
from .estimator_process_lost import ProcessLost, process_lost_in_the_launch
from .estimator_predict_checks import (check_evaluation_cases, check_evaluation_headers, check_predict_options,
                                       evaluation_channel_names_warning, held_out_alone_warning, how_it_runs,
                                       refuse_an_output_among_the_cases, refuse_an_output_path,
                                       refuse_what_is_no_dataset)
from .estimator_saved_model import EXPORT_FILES, export_fingerprint, refuse_a_model_file_name, saved_design
from .estimator_settings import checked_config, field_names, refuse_unknown, run_config
from .exported_model import EXPORT_KEYS, check_export_fits, read_export_config
from .files import file_in_the_way, is_json_object_with, replace_files_together
from .launch_env import launched_processes
from .launch_interrupt_logs import shutdown_logged_unless_the_fit_says_it
from .model_folders import ESTIMATOR_NAMES, Names, callers_names, complete_checkpoints, estimator_fp32
from .models import arg_names, check_arg_names
from .own_warnings import AcceleratedSegWarning, recorded
from .run_folder import TRAIN_RUN_MARKER, paths_read, resume_or_replace
from .strategy import MIXED_PRECISION, next_accelerator_in
from .wording import counted


# What Segmentation(...) and fit(...) take as keyword settings
_SETTING_NAMES = frozenset(field_names(TrainConfig) + field_names(OptimConfig))


def _network_takes(model: str, names) -> bool:
    """Whether every name is a constructor argument of the registry network ``model``."""
    return set(names) <= arg_names(model)


class Segmentation:
    """nobrainer-style estimator over the one training loop, predict and evaluate.

        model = Segmentation("unet", model_args={"channels": [16, 32, 64, 128], "strides": [2, 2, 2]})
        model.fit(Dataset.from_files(pairs, block_shape=(96, 96, 96), n_classes=2).batch(2), epochs=50)
        label_image = model.predict("brain.nii.gz")          # nibabel image on the input's grid
        model.save("brain_model"); model = Segmentation.load("brain_model")
        model.fit(new_data, epochs=10)                        # fine-tunes the loaded weights

    Args:
        model: registry name (unet, segresnet, swinunetr, unetr, dynunet, unet3d_mlperf; models.MODELS).
        model_args: MONAI constructor arguments over our defaults (``model.args``).
        multi_gpu: in a plain Python session or notebook, train on every visible GPU through
            accelerate's ``notebook_launcher``. Under ``accelerate launch`` the launched processes
            are used whatever this says; with fewer than 2 GPUs it trains in this process.
        output_dir: where runs, checkpoints and exports go.
        precision: "fp32", "bf16" or "fp16" training (accelerate's ``mixed_precision``). None follows
            the launch: ``accelerate launch``'s setting, or fp32 in a plain Python session. Given, it wins
            over the launch's default "no" (no ``--mixed_precision``, none in its profile); against a launch's
            ``--mixed_precision``, its profile's ``mixed_precision`` or a DeepSpeed json's other precision, it is
            refused rather than silently overruled.
        train_settings: any ``TrainConfig`` field (``max_steps``, ``val_every``, ``global_batch_size``...)
            or ``OptimConfig`` field (``lr``, ``weight_decay``, ``warmup_steps``...); ``compile=True``
            compiles the model (``train.compile``).
    """

    def __init__(self, model: str = "unet", model_args: dict | None = None, multi_gpu: bool = False,
                 output_dir: str = "runs/segmentation", precision: str | None = None, **train_settings):
        # Refused here rather than at fit, as Dataset.from_files refuses a bad block_shape.
        check_network_name(model, "Segmentation: model")
        if precision is not None and precision not in MIXED_PRECISION:
            raise ConfigError(f"Segmentation: precision {precision!r} is not known; choose one of: "
                              f"{', '.join(MIXED_PRECISION)}{did_you_mean(precision, MIXED_PRECISION)} (or leave it "
                              f"out to follow the launch)")
        if model_args is not None and not isinstance(model_args, dict):
            raise ConfigError(f"Segmentation: model_args must be a dict of MONAI constructor arguments such as "
                              f'{{"channels": [16, 32, 64], "strides": [2, 2]}}, got {model_args!r}')
        try:
            check_arg_names(model, model_args or {}, ESTIMATOR_NAMES)  # a misspelt name here, not at fit
        except ConfigError as error:  # in the estimator's words: model_args, not the config's model.args
            raise ConfigError(f"Segmentation: {error}") from None
        if not isinstance(multi_gpu, bool):  # multi_gpu="no" is truthy: it would train on every GPU
            raise ConfigError(f"Segmentation: multi_gpu must be True or False, got {multi_gpu!r}")
        if not isinstance(output_dir, (str, os.PathLike)) or not os.fspath(output_dir).strip():
            # "" is the working directory to pathlib; None and numbers failed only when fit made the folder
            raise ConfigError(f"Segmentation: output_dir must be a folder path, got {output_dir!r}")
        misplaced = sorted(set(train_settings) - _SETTING_NAMES)
        if misplaced and _network_takes(model, misplaced):  # e.g. Segmentation("unet", channels=[16, 32])
            raise ConfigError(f"Segmentation: {', '.join(misplaced)}: argument(s) of the network, not training "
                              f"settings; pass them in model_args, e.g. model_args={{{misplaced[0]!r}: ...}}")
        refuse_unknown(train_settings, (TrainConfig, OptimConfig),
                        "Segmentation: {} is not a training or optimizer setting")
        # their values too (lr=-1, lr="abc", batch_size=0), as a run config checks them
        checked_config(run_config(DataConfig(), train_settings), "Segmentation", ESTIMATOR_NAMES)
        self.model_name, self.model_args, self.precision = model, dict(model_args or {}), precision
        self.multi_gpu, self.output_dir, self.train_settings = multi_gpu, output_dir, train_settings
        self.model_dir: Path | None = None  # the exported model predictions use
        self._model_files: str | None = None  # the fingerprint of model_dir's files when they were taken
        self.loaded_from: Path | None = None  # the export Segmentation.load read: every fit starts from it
        self._loaded_files: str | None = None  # the fingerprint of loaded_from's files when they were loaded
        self.run_dir: Path | None = None  # where fit trained it (fit's output_dir may differ from the constructor's)
        self._started_from: str | None = None  # the weights that run started from (its init_from), or None
        self._run_info_taken = None  # that run's run_info.json as it ended (run_info_written): another fit's since
        self.summary: dict | None = None
        self._interrupted: InterruptedFit | None = None  # the last fit, where Ctrl-C stopped it
        self._preempted: InterruptedFit | None = None  # the last fit, where a signal stopped it (it returned)

    def fit(self, dataset: Dataset | None = None, epochs: int | None = None, steps: int | None = None, *,
            names: Names | dict | None = None, **train_settings):
        """Train on ``dataset`` for ``epochs`` (passes over its patches) or ``steps`` optimizer steps
        (``max_steps``, here or in the constructor, is ``steps`` by its config name); one epoch if none.

        A constructed estimator's fit starts from a new network; a loaded one's (``Segmentation.load``)
        from the loaded weights, as nobrainer's fit goes on from the model it holds: the dataset must
        then have the model's channels, or several where it has one (its input layers' weights are
        spread over them), and for UNETR its block_shape (its img_size). With other classes (or
        regions) it fine-tunes: the output layers start afresh, every other layer loaded. Its class and
        channel names are kept where the dataset has as many and names none (``class_names``,
        ``channel_names`` of ``Dataset.from_files``, which win where given).
        ``init_from=None`` trains a new network of the same design instead, another ``init_from``
        starts from that export, and ``resume`` continues a run from its checkpoint.

        A new run never replaces an earlier one in ``output_dir`` (a second ``fit`` of the same
        estimator, say): that is a ConfigError unless ``overwrite=True`` (here or in the constructor)
        deletes it first, or ``resume="latest"`` continues it. Stopped by Ctrl-C, the estimator keeps the
        run's place: repr, predict, evaluate and save name its step, its newest checkpoint and the ways on;
        so where a process of a multi-GPU fit is killed (the OOM killer), which raises ``ProcessLost``.

        ``names``: the words its messages say the ways on in (a stop's line, the run folder's refusals), for a
        script whose user gives flags, not these keywords: a dict of ``model_folders.Names``' fields over the
        estimator's own, ``{"resume_again": "run the same command with --resume latest", "overwrite": "--overwrite"}``
        (examples/estimator.py's), or a ``Names``; None: the keywords, ``call fit(..., resume='latest') again``.
        """
        with interrupts_between_imports():  # a decorator's frame would move the warnings' lines
            give_back_an_import_lock_left_held()  # by a Ctrl-C of an earlier call: this fit's threads would hang
            _check_fit_arguments(dataset, epochs, train_settings)
            names = callers_names(names, ESTIMATOR_NAMES, "fit")
            settings, fine_tunes = self._fit_settings(train_settings)
            cfg, processes, steps = self._fit_config(dataset, settings, fine_tunes, epochs, steps, train_settings,
                                                     names)
            mixed_precision = launch_precision(self.precision)
            if processes > 1:
                check_the_master_port()
            refuse_unguarded_main(cfg.data.num_workers, setting="num_workers", example=EXAMPLE)
            out, manifest, started_from, continues_its_run = self._fit_run_folder(cfg, dataset, settings, names)
            run_info_at_start = run_info_written(out)  # an earlier run's, where the folder holds one
            self._note_a_new_network(settings)
            # Each fit builds its Accelerator afresh: an earlier fit's precision must not carry over, and
            # notebook_launcher refuses to start while an earlier Accelerator's state is alive.
            try:
                with next_accelerator_in(self.precision, given_as=ESTIMATOR_PRECISION):
                    if processes > 1:
                        self.summary = _trained_in_launched_processes(cfg, manifest, processes, mixed_precision, out,
                                                                      names)
                    else:
                        from .train import train

                        self.summary = train(cfg, manifest=manifest, names=names)
            except KeyboardInterrupt as interrupted:
                self._keep_the_stop(out, getattr(interrupted, "step", None), steps, started_from, continues_its_run,
                                    run_info_at_start, names=names)
                raise
            except ProcessLost as lost:  # kept as Ctrl-C's stop is, said in full now that the run is read
                stopped = self._keep_the_stop(out, lost.step, steps, started_from, continues_its_run,
                                              run_info_at_start, stopped_by=lost.stopped_by(), names=names)
                raise lost.with_ways_on(f"{stopped.stopped_after()} in {stopped.run}", stopped.ways_on(),
                                        stopped.checkpoint_offered()) from None
            except Exception:  # refused or failed: what it wrote of its own stopped run is that run's
                self._follow_a_failed_resume(out.absolute(), continues_its_run, run_info_at_start)
                raise
            self._take_the_run(out, steps, started_from, names)
            return self

    def _keep_the_stop(self, out: Path, step: int | None, steps: int, started_from: str | None,
                       continues_its_run: bool, run_info_at_start, **stopped_by_and_names) -> InterruptedFit:
        """Keep the run a fit stopped in (Ctrl-C, or a launched process lost) for repr and predict, which said "not
        trained yet" and "call fit()" of it before the hundredth session (of a process lost, before the
        hundred-and-fifteenth); the model of an earlier fit, if any, is still the one predicted with. ``step``: the
        step it stopped after, where said; ``stopped_by_and_names``: InterruptedFit's, what stopped it and the fit's
        ``names``. Returns the record kept."""
        # a resume of the stopped run stopped before it wrote anything leaves that run as the stop did: said
        # "a fit interrupted (Ctrl-C) in <run>", its step no longer, until the hundred-and-sixth session
        wrote_nothing = same_run_info(run_info_written(out), run_info_at_start)
        if not (wrote_nothing and _resumes(self._interrupted, out.absolute(), continues_its_run, run_info_at_start)):
            # a new run that wrote nothing says no step: a resume of another folder's checkpoint carries
            # that checkpoint's (RunSoFar.stopped_after), none of this folder's (the hundred-and-eleventh
            # session said "after step 2 of 4 in <folder>; nothing was saved" until its review)
            saved_nothing = wrote_nothing and not continues_its_run
            self._interrupted = InterruptedFit(out.absolute(), None if saved_nothing else step, steps, started_from,
                                               run_info_at_start=run_info_at_start, saved_nothing=saved_nothing,
                                               **stopped_by_and_names)
        return self._interrupted

    def _fit_settings(self, train_settings: dict) -> tuple[dict, bool]:
        """(the run's settings: this call's over the constructor's, whether the fit fine-tunes a loaded model).

        A loaded model is trained on (train.init_from), unless init_from is given, or resume continues a run
        (whose checkpoint holds the weights). Before the forty-fourth session it was silently replaced by a new
        network."""
        settings = {"output_dir": self.output_dir, **self.train_settings, **train_settings}
        fine_tunes = self.loaded_from is not None and "init_from" not in settings and not settings.get("resume")
        if fine_tunes:
            # as predict refuses a model_dir replaced since: another model saved there was trained on, unsaid
            if export_fingerprint(self.loaded_from) != self._loaded_files:
                raise RuntimeError(f"fit: {self.loaded_from} no longer holds the model this Segmentation loaded "
                                   f"from it: it was replaced or removed since; Segmentation.load("
                                   f"{str(self.loaded_from)!r}) to train on what it holds now, or fit(..., "
                                   f"init_from=None) to train a new network of its design")
            settings["init_from"] = str(self.loaded_from)
        return settings, fine_tunes

    def _fit_config(self, dataset: Dataset, settings: dict, fine_tunes: bool, epochs, steps,
                    train_settings: dict, names: Names) -> tuple[Config, int, int]:
        """(the run config of this fit, checked as a YAML file's is, in ``names``; the processes it trains in; its
        steps)."""
        cfg = dataset.unchecked_config(settings, "fit")
        cfg.model = dataclasses.replace(cfg.model, name=self.model_name, args=self.model_args)
        processes = gpus_to_launch() if self.multi_gpu else 1
        steps = self._steps_asked(epochs, steps, train_settings)
        # the values as a YAML file's are, before the batch plan reads them: lr="1e-3" (a float in config.yaml)
        # was accepted by the constructor and then multiplied as a string, Python's TypeError
        cfg = checked_config(cfg, "fit", names)
        check_an_epoch_holds_a_batch(dataset, cfg, max(processes, launched_processes()))
        if steps is None:
            steps = steps_for_epochs(epochs or 1, dataset, cfg, max(processes, launched_processes()))
        cfg.train = dataclasses.replace(cfg.train, max_steps=steps)
        # Here, before any process is launched, so the refusal names the estimator's settings.
        cfg = check_values(cfg)
        if not dataset.manifest.validation and cfg.train.val_every:  # train says so in the config's terms
            # "a larger validation_fraction", which validation_pairs override, until the ninety-third session
            raise ConfigError(f"fit: the dataset has no validation cases ({dataset.manifest.split}) to validate on "
                              f"every {counted(cfg.train.val_every, 'step')} (val_every): set val_every=0 to train "
                              f"without validation, or "
                              f"{ways_to_validation_cases(dataset.manifest, 'validation_fraction', 'num_folds')}")
        check_the_network_fits_the_blocks(cfg, dataset, max(processes, launched_processes()), names=names)
        if fine_tunes:  # after that check: a block_shape the network cannot take was said as data.patch_size here
            check_fine_tuning(self.loaded_from, cfg, dataset.manifest, channels_named=dataset.channel_names is not None)
        return cfg, processes, steps

    def _steps_asked(self, epochs, steps, train_settings: dict) -> int | None:
        """The optimizer steps asked for, None where epochs (or nothing, one epoch) are; a ConfigError where more
        than one length is given, or one that is no whole number >= 1.

        max_steps (a TrainConfig field, so accepted here or in the constructor) is steps by its config name. What
        this call gives wins over the constructor's, as for every other setting."""
        lengths = {"epochs": epochs, "steps": steps, "max_steps": train_settings.get("max_steps")}
        given = [name for name, value in lengths.items() if value is not None]
        if len(given) > 1:
            raise ConfigError(f"fit: give one of epochs, steps (or max_steps), not {' and '.join(given)}")
        if not given and self.train_settings.get("max_steps") is not None:
            given, lengths["max_steps"] = ["max_steps"], self.train_settings["max_steps"]
        for name in given:
            value = lengths[name]
            if not is_whole_number(value, 1):
                raise ConfigError(f"fit: {name} must be a whole number >= 1, got {value!r}")
        return steps if steps is not None else lengths["max_steps"]

    def _fit_run_folder(self, cfg: Config, dataset: Dataset, settings: dict,
                        names: Names) -> tuple[Path, Manifest, str | None, bool]:
        """(the run's folder, made ready: an earlier run there resumed or replaced as the settings say; the
        dataset's manifest, its classes named as the run's start names them; what the run started from; whether
        the fit continues the folder's run, resuming one of its checkpoints). Refused in ``names``."""
        out = Path(cfg.train.output_dir)
        if is_json_object_with(out / "config.json", {"model", *EXPORT_KEYS}):
            # A run beside a saved model (fit into the folder Segmentation.load read): load took the folder for
            # the model saved there, not the run's, and save refuses a run's folder for the same reason
            raise ConfigError(f"fit: output_dir {out} holds a saved model (config.json, model.safetensors), and a "
                              f"run written beside it would be mistaken for it: give the run a folder of its own, "
                              f"e.g. output_dir={str(out / 'run')!r}")
        reads = paths_read(cfg.train.init_from, dataset.manifest.files(), cache_root(cfg.data))
        resume_from, _ = resume_or_replace(out, cfg.train.resume, cfg.train.overwrite, reads=reads, names=names)
        manifest = named_as_its_start(dataset, resume_from, settings.get("init_from", self.loaded_from))
        # A checkpoint of another folder starts a new run here (resume_or_replace), which is not the folder's run:
        # until the hundred-and-sixth session's review it was taken for it, its start and stop records said of it
        continues_its_run = (resume_from is not None
                             and resume_from.resolve().parent == (out / "checkpoints").resolve())
        # What repr says the run started from: a loaded estimator's said its folder after init_from=None or another
        # init_from (an audit of the README). A resume carries on its run's start, known where this one trained it.
        started_from = self._start_of(out.absolute()) if continues_its_run else cfg.train.init_from
        return out, manifest, started_from, continues_its_run

    def _note_a_new_network(self, settings: dict) -> None:
        """Print (on the main process) that a constructed estimator's second fit trains a new network: nobrainer's
        (Keras') second fit goes on from the first one's weights, and this one's new network was unsaid."""
        if (self.loaded_from is None and self.model_dir is not None and "init_from" not in settings
                and not settings.get("resume") and os.environ.get("RANK", "0") == "0"):
            print(f"note: this fit trains a new network, not the weights of the last fit ({self.model_dir}), as "
                  f"every fit of a constructed Segmentation does; fit(..., init_from={str(self.model_dir)!r}, "
                  f"output_dir=<another folder>) trains those on")

    def _follow_a_failed_resume(self, run: Path, continues_its_run: bool, run_info_at_start) -> None:
        """Take the stopped run in ``run`` as it is now, after this estimator's resume of it failed: what the resume
        wrote there (run_info.json anew, a checkpoint) is that run's going on, not a later fit's, which until the
        hundred-and-sixth session the stop's record said it was ("a later fit has written that folder since"),
        offering none of its checkpoints. A folder another fit wrote before the resume is not followed. So for a
        finished run's: its next resume's repr named no start (", from <folder>") of it.

        Called as the fit's error is raised: a folder it cannot read now (permissions) leaves the records as they
        were, where the OSError took the place of the fit's own error (the hundred-and-sixth session's review)."""
        if not continues_its_run:
            return
        for record in ("_interrupted", "_preempted"):
            if _resumes(stopped := getattr(self, record), run, continues_its_run, run_info_at_start):
                if (gone_on := stopped.gone_on()) is None:  # its checkpoints unreadable now
                    return
                setattr(self, record, gone_on)
        if self.run_dir == run and same_run_info(self._run_info_taken, run_info_at_start):
            self._run_info_taken = run_info_written(run)

    def _take_the_run(self, out: Path, steps: int, started_from: str | None, names: Names) -> None:
        """Predict with what the finished (or preempted) run in ``out`` exported, and keep its place for repr (its
        ways on in the fit's ``names``)."""
        self._interrupted = None
        # the run a signal stopped, for repr and predict to name its checkpoint and the export as after Ctrl-C
        self._preempted = (InterruptedFit(out.absolute(), self.summary.get("step"), steps, started_from,
                                          stopped_by="preempted (SIGTERM/SIGUSR1)", names=names)
                           if self.summary.get("preempted") else None)
        # A preempted run exports nothing: model_dir named a model/ that was not there, and predict
        # failed on the missing folder rather than saying so (seventy-third session's review)
        exported = [folder for folder in (out / "best_model", out / "model") if folder.is_dir()]
        self._take_model(exported[0] if exported else None)
        self.run_dir = out.absolute()  # as model_dir: evaluate's default folder is beside the run after a chdir too
        self._started_from, self._run_info_taken = started_from, run_info_written(out)

    def predict(self, x, batch_size: int = 4, affine=None, **options):
        """Segment a NIfTI path (or one path per channel), a nibabel image (or one per channel) or an array.

        Args:
            x: a path (list of paths for several channels); a nibabel image such as ``nib.load(path)``
                (list of images for several channels); or an array (X, Y, Z) / (C, X, Y, Z): numpy,
                a torch tensor, or anything ``np.asarray`` takes. (X, Y, Z, C), as ``get_fdata()`` gives
                a 4D file, is read so where only its last axis is the model's channel count; (X, Y, Z, 1, 1),
                of a volume stored behind size-1 axes, as (X, Y, Z); a list of one array per channel, each read
                as its file would be ((X, Y, Z, 1) or (X, Y, Z, 1, 1) as (X, Y, Z)), and those stacked,
                (C, X, Y, Z, 1, 1), as (C, X, Y, Z).
            batch_size: windows per forward pass of the sliding window.
            affine: voxel-to-mm matrix for an array input (default: 1 mm, RAS); an image has its own.
            options: ``predict_file`` options (overlap, tta, precision, aggregate_on_cpu, transforms_on_device,
                device, keep_largest).

        Returns:
            For a path or an image: a nibabel image with the input's shape and affine. For an array:
            the label array.
        """
        with interrupts_between_imports():  # a decorator's frame would move the warnings' lines
            from .data.io import write_nifti
            from .inference import predict_file
            from .inference_inputs import check_channel_count, check_no_folder_as_a_channel
            from .in_memory_lines import said_in_memory, said_of_an_array
            from .predict_names import ESTIMATOR_PREDICT_NAMES

            give_back_an_import_lock_left_held()  # by a Ctrl-C of an earlier call: the pipeline's threads would hang
            model_dir = self._require_model("predict")
            if isinstance(x, dict):  # a datalist's entry: "an array of shape ()" before
                raise DataError(f"predict: a dict (keys {sorted(map(str, x))}); give the scan itself, as a path, "
                                f"a nibabel image or an array (a datalist entry's x['image'])")
            config = read_export_config(model_dir)
            refuse_an_output_path(batch_size, options)
            check_predict_options("predict", batch_size, options, config, also="affine")
            is_path, is_image = (_is_one_or_a_list_of(x, kind) for kind in ((str, os.PathLike), SpatialImage))
            if is_image and affine is not None:
                raise ConfigError("predict: an image carries its own affine; drop affine= (it is for arrays)")
            if is_path and affine is not None:  # the file's own was used, and the one given dropped without a word
                raise ConfigError("predict: a file carries its own affine, which predict uses; drop affine= (it is for "
                                  "arrays), or give nib.load(path).get_fdata() with it")
            # a list of several cases for a one-channel model: said of x, before anything is saved
            if is_path or is_image:
                given = list(x) if isinstance(x, (list, tuple)) else [x]
                try:
                    if is_path:  # a folder of cases
                        check_no_folder_as_a_channel(given, ESTIMATOR_PREDICT_NAMES)
                    check_channel_count([str(item) for item in given] if is_path else
                                        [f"image {c} of the list" for c in range(len(given))], config,
                                        ESTIMATOR_PREDICT_NAMES, "files" if is_path else "images")
                except DataError as error:
                    raise DataError(f"predict: {error}") from None
            with tempfile.TemporaryDirectory() as tmp:
                if is_path:
                    inputs = x
                elif is_image:  # saved as it is (header, data type, geometry), so it takes the path's road exactly
                    images = [x] if isinstance(x, SpatialImage) else x
                    inputs = [Path(tmp) / f"input_{c:04d}.nii.gz" for c in range(len(images))]
                    for image, path in zip(images, inputs):
                        nib.save(image, path)
                else:  # one temporary NIfTI per channel, so an array takes the path's road exactly
                    channels = checked_channels(x, config["in_channels"])
                    grid = checked_affine(affine)
                    if warning := array_grid_warning(affine, config):
                        warnings.warn(warning, AcceleratedSegWarning, stacklevel=2)
                    inputs = [write_nifti(Path(tmp) / f"input_{c:04d}.nii.gz", channel, grid)
                              for c, channel in enumerate(channels)]

                def in_the_callers_words(message: str) -> str:
                    """The temporary file is no name of the user's (nor will it exist once this returns), nor the
                    nibabel lines' ``path`` (``in_memory_lines``)."""
                    if is_path:
                        return message
                    for channel, path in enumerate(inputs):
                        given = ("the image" if len(inputs) == 1 else f"image {channel} of the list") if is_image else \
                            ("the array" if len(inputs) == 1 else f"the array's channel {channel}")
                        message = message.replace(str(path), given)
                    if not is_image:  # a rewrite of its geometry is another affine= (said_of_an_array)
                        message = said_of_an_array(message)
                    return said_in_memory(message, "img being each image named" if is_image else
                                          "img = nib.Nifti1Image(each array named, affine)")

                # Warnings too (a single slice, no orientation): they named /tmp/tmpXXXX/input_0000.nii.gz
                failure = None
                with recorded() as raised:
                    try:
                        output = predict_file(model_dir, inputs, Path(tmp) / "prediction.nii.gz",
                                              sw_batch_size=batch_size, fp32_setting=estimator_fp32("predict"),
                                              names=ESTIMATOR_PREDICT_NAMES, lock_outputs=False, **options)
                    except DataError as error:
                        failure = error
                _said_again(raised, "predict", stacklevel=2, in_the_callers_words=in_the_callers_words)
                # said by predict, as its other errors: a path's were bare until the 91st session
                if failure is not None:
                    raise DataError(f"predict: {in_the_callers_words(str(failure))}") from None
                image = nib.load(str(output))
                labels = np.asanyarray(image.dataobj).copy()  # read before the folder goes away
                if not (is_path or is_image):
                    return labels
                return type(image)(labels, image.affine, image.header)  # NIfTI-2 for a NIfTI-2 scan, as written

    def evaluate(self, dataset: Dataset, output_dir: str | Path | None = None, batch_size: int = 4,
                 **options) -> dict:
        """Predict ``dataset``'s validation cases and score them (Dice, HD95, surface Dice); returns
        the summary that ``accelerated-seg evaluate`` writes. The model is loaded once and the cases are
        predicted as ``predict`` does a folder (the next one read while the network runs).

        Predictions and references are scored as class indices 0..C-1: the references' values
        mapped as training mapped them, so binarized and remapped datasets (BraTS' 4) score as they
        were trained. A binarized dataset's references are written as they are and merged by
        ``evaluate_folders``, as ``accelerated-seg evaluate`` merges them given a binarized model's
        config.json, so that summary.json says so alike (``merged_foreground`` and its note; this method
        merged them itself, unsaid, before the ninety-ninth session). ``output_dir/predictions`` and
        ``output_dir/labels`` belong to this method and are rebuilt on every call, so an earlier call's
        cases never mix in; such folders that another program wrote are refused (FileExistsError), not
        deleted. ``options`` are ``predict``'s;
        ``keep_largest`` scores the predictions post-processed, so that its effect on the Dice is measured
        on validation cases before it is used (as nnU-Net chooses its post-processing).

        Under ``accelerate launch`` with several processes the main process predicts and scores, and
        every rank returns its summary (or raises its error): the folders are one, and ranks that
        each rebuilt them deleted one another's cases (sixty-ninth session).
        """
        with interrupts_between_imports():  # a decorator's frame would move the warnings' lines
            give_back_an_import_lock_left_held()  # by a Ctrl-C of an earlier call: the pipeline's threads would hang
            refuse_what_is_no_dataset(dataset)
            if launched_processes() > 1:
                from accelerate import PartialState
                from accelerate.utils import parse_flag_from_env

                from .ranks import on_main

                state = PartialState(cpu=parse_flag_from_env("ACCELERATE_USE_CPU"))  # the launch's, as fit's
                # on_main and the lambda are two frames more between the caller's line and _evaluate_here: at 3, the
                # warnings named accelerated_seg/ranks.py (until the hundred-and-first session)
                return on_main(state,
                               lambda: self._evaluate_here(dataset, output_dir, batch_size, options, stacklevel=5))
            return self._evaluate_here(dataset, output_dir, batch_size, options, stacklevel=3)

    def _evaluate_here(self, dataset: Dataset, output_dir: str | Path | None, batch_size: int, options: dict, *,
                       stacklevel: int) -> dict:
        """``evaluate`` in this process; its warnings at ``stacklevel``, the caller's line as seen from here."""
        from .data.checks import check_manifest
        from .evaluate_output import check_output_folder
        from .inference import preprocess_settings as export_preprocessing

        model_dir = self._require_model("evaluate", stacklevel=stacklevel + 1)
        config = read_export_config(model_dir)
        check_predict_options("evaluate", batch_size, options, config)  # before the folders below are rebuilt
        check_evaluation_cases(dataset, config)
        # the Dataset's channel names against the model's: another order refused, other names warned of
        for warning in (evaluation_channel_names_warning(dataset, config), held_out_alone_warning(dataset.manifest)):
            if warning:
                warnings.warn(warning, AcceleratedSegWarning, stacklevel=stacklevel)
        # Every validation case judged from its headers as predict judges them (its channels' units and voxel sizes
        # against the model's spacing, which training's check has none of), the others opened and checked as fit
        # checks them (values, grids, channels), all listed in one refusal before the folders below are rebuilt: a
        # bad case found while scoring deleted the last call's summary and stopped half-way, naming the copy in the
        # references folder rather than the user's file. Its errors alone: no z-score sums for CT.
        normalization = export_preprocessing(config).normalization
        # The cases judged by the model's channels (estimator_predict_checks.evaluated_manifest), as predict reads them
        check_evaluation_headers(dataset, config,
                                 read_check=functools.partial(check_manifest, normalization=normalization))
        out = Path(output_dir or Path(self.run_dir or self.output_dir) / "evaluation").expanduser()
        # a summary.json of another's (output_dir=the run folder) is not deleted below; the refusals name
        # this method's output_dir: "--output", the command line's flag, was never given here. First, as the
        # command's: a name too long was the bare "[Errno 36] File name too long" of the look at predictions/
        # below, and a link in a loop pathlib's "RuntimeError: Symlink loop" of the resolve in the check after it,
        # until the hundred-and-twenty-second session's review
        check_output_folder(out, setting="evaluate: output_dir",  # with the maps it writes below: before any predicts
                            written_below=[f"predictions/{case.id}.nii.gz" for case in dataset.manifest.validation])
        if output_dir is not None:  # the default is in the run's folder
            refuse_an_output_among_the_cases(out, dataset.manifest)
        predictions, labels = out / "predictions", out / "labels"
        for folder in (predictions, labels):
            if folder.exists() and not (folder / _EVALUATE_MARKER).is_file():
                raise FileExistsError(f"evaluate: {folder} exists and was not written by Segmentation.evaluate, which "
                                      f"rebuilds it on every call; give evaluate another output_dir")
        for stale in (out / "summary.json", out / "metrics.csv"):  # would describe predictions no longer there
            stale.unlink(missing_ok=True)
        for folder in (predictions, labels):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            (folder / _EVALUATE_MARKER).touch()
        # The warnings raised deep in predict's and evaluate's code (the precision, the model's preprocessing, a
        # scan's header) at the caller's line, as predict says them: they named estimator.py and ensemble.py
        # (until the hundred-and-first session)
        raised = []
        try:
            with recorded() as raised:  # changing no filter (own_warnings.recorded): Python's records of lines kept
                return _predicted_and_scored(model_dir, config, dataset, out, batch_size, options)
        finally:
            _said_again(raised, "evaluate", stacklevel=stacklevel)

    def save(self, directory: str | Path) -> Path:
        """Copy the exported model (config.json + model.safetensors) to ``directory``."""
        if not os.fspath(directory).strip():  # Path("") is the working directory: the model went there
            raise ConfigError(f"save: an empty path {directory!r}; give the folder to save the model in")
        source, directory = self._require_model("save"), Path(directory)
        refuse_a_model_file_name(directory)
        if directory.resolve() == source.resolve():  # already there (e.g. save(model.model_dir))
            return directory
        if blocking := file_in_the_way(directory):  # else errno 17 or 20, naming no remedy
            raise ConfigError(f"save: {blocking} is a file, so the model folder {directory} cannot be made there; "
                              f"give a folder path")
        # A folder of another program's (a project root, a HuggingFace model) may hold files of these names:
        # its config.json was replaced by the model's before the thirty-first session.
        if (any((directory / name).exists() for name in EXPORT_FILES)
                and not is_json_object_with(directory / "config.json", {"model", *EXPORT_KEYS})):
            raise ConfigError(f"save: {directory} holds a config.json or model.safetensors that is not an exported "
                              f"model's, and save replaces only a model's: give another folder, or move them")
        # A run's folder holding these two files passed for an export (Segmentation.load, predict --model)
        # and kept them when the run was overwritten: the stale model was then loaded (seventy-fourth session).
        # Told by what only runs write (a summary.json or a model/ folder may be anyone's).
        checkpoints = complete_checkpoints(directory / "checkpoints")
        if checkpoints or (directory / TRAIN_RUN_MARKER).is_file():
            held = f"checkpoints up to {checkpoints[-1].name}" if checkpoints else TRAIN_RUN_MARKER
            raise ConfigError(f"save: {directory} is a training run's folder (it holds {held}); a model saved "
                              f"beside it would be taken for the run's: give a folder of its own, e.g. "
                              f"{directory / 'saved_model'}")
        # A run's own export replaced in place: the run's summary, metrics and checkpoints then described another
        # model, and a resume of it exported over this one (an audit of the estimator)
        run = directory.parent
        if directory.name in ("model", "best_model") and (complete_checkpoints(run / "checkpoints")
                                                          or (run / TRAIN_RUN_MARKER).is_file()):
            raise ConfigError(f"save: {directory} is the {directory.name} exported by the training run in {run}, "
                              f"whose summary and checkpoints describe it; give a folder of its own, outside the run")
        # Both copied before either replaces the one there: a full disk leaves the earlier model whole.
        replace_files_together(directory, {name: source / name for name in EXPORT_FILES})
        if self.loaded_from is not None and directory.resolve() == self.loaded_from.resolve():
            # its own model saved over the one it loaded (fine-tuned, saved in place): the next fit starts from it
            self._loaded_files = export_fingerprint(self.loaded_from)
        return directory

    @classmethod
    def load(cls, directory: str | Path, **settings) -> "Segmentation":
        """An estimator ready to predict with a saved or exported model.

        ``settings``: the constructor's (``output_dir``, where a later ``fit`` and ``evaluate`` write;
        ``precision``, ``multi_gpu``, training settings), all but ``model_args`` and the network's own
        arguments (``channels=``), which the model holds.
        """
        if "model_args" in settings or "model" in settings:  # model: a TypeError of __init__'s before
            raise ConfigError(f"Segmentation.load: {'model_args are' if 'model_args' in settings else 'the model is'} "
                              f"the saved model's; to train another design, construct Segmentation(name, "
                              f"model_args=...) and fit it")
        if not os.fspath(directory).strip():  # Path("") is the working directory: "config.json is missing" there
            raise ConfigError(f"Segmentation.load: an empty path {directory!r}; give the folder of a saved or "
                              f"exported model")
        directory = Path(directory).expanduser()  # "~" as the command line reads it
        try:  # a broken or foreign export fails here, naming the file
            config = read_export_config(directory)
        except (FileNotFoundError, DataError) as error:  # said by load, as its other errors; bare until the 91st
            raise type(error)(f"Segmentation.load: {error}") from None
        name, design = saved_design(config, directory / "config.json")
        # Its two files of one export: said at the first predict, in torch's words, until the 93rd session. The
        # network built here, without weights, is not kept for predict, which builds it again from the export as it
        # is then: 0.12 s (UNet), 0.44 s (SwinUNETR) against one 128^3 window's 3.0 s, 197 s forward on one thread
        # (benchmarks/results/predict_build_cost.json).
        try:
            check_export_fits(directory, config)
        except DataError as error:
            raise DataError(f"Segmentation.load: {error}") from None
        # The constructor's "pass them in model_args" is what load refuses above: the design is the saved model's
        if (misplaced := sorted(set(settings) - _SETTING_NAMES)) and _network_takes(name, misplaced):
            held = ", ".join(f"{arg}={design[arg]!r}" for arg in misplaced if arg in design)
            raise ConfigError(f"Segmentation.load: {', '.join(misplaced)}: argument(s) of the network, which the "
                              f"saved model holds{f' ({held})' if held else ''}: load it without them; to train "
                              f"another design, construct Segmentation({name!r}, model_args={{{misplaced[0]!r}: ...}}) "
                              f"and fit it")
        try:
            estimator = cls(name, model_args=design, **settings)
        except ConfigError as error:  # the constructor's checks of the settings, said by the method called
            raise ConfigError(f"Segmentation.load: {str(error).removeprefix('Segmentation: ')}") from None
        estimator._take_model(directory)
        # absolute, as model_dir: a relative one was looked up from the working folder at each fit, so a
        # chdir after the load left fit without the model that predict still used
        estimator.loaded_from, estimator._loaded_files = estimator.model_dir, estimator._model_files
        return estimator

    def __repr__(self) -> str:
        """The network, and what it predicts with: a fit's model (and the weights it started from), a loaded
        one, or none yet."""
        design = f", model_args={self.model_args!r}" if self.model_args else ""
        if self.run_dir is not None:
            summary = self.summary or {}
            steps = summary.get("step")
            state = f"trained {steps} step{'' if steps == 1 else 's'} in {self.run_dir}"
            if summary.get("preempted"):
                state += " (stopped by a signal)"
            if summary.get("best_dice") is not None and summary["best_dice"] >= 0:  # null (-1 before): never validated
                state += f", best validation mean Dice {summary['best_dice']:.4f} at step {summary.get('best_step')}"
            if self._started_from is not None:
                state += f", from {self._started_from}"
        elif self.loaded_from is not None:
            return f"<Segmentation {self.model_name!r}{design}: loaded from {self.loaded_from}{self._since()}>"
        elif self._interrupted is not None:  # "not trained yet" before the hundredth session
            return f"<Segmentation {self.model_name!r}{design}: no trained model: {self._interrupted.said()}>"
        else:
            return f"<Segmentation {self.model_name!r}{design}: not trained yet>"
        if self.model_dir is None:
            predicts = "no model exported yet"
            if self._preempted is not None:
                predicts += f": {self._preempted.ways_on()}"
        elif export_fingerprint(self.model_dir) != self._model_files:
            # as predict refuses it: a fit stopped after overwrite deleted the run, or another fit into that folder.
            # "predicts with" the deleted model was said until the ninety-sixth session
            predicts = f"its model {self.model_dir} was replaced or removed since: fit again to predict"
        else:
            predicts = f"predicts with {self.model_dir}"
            if self._preempted is not None:  # a validation's best_model, exported before the signal: the resume
                # was named only where no model was (until the hundred-and-first session)
                predicts += "; " + self._preempted.ways_on(predicting_with=self.model_dir)
        return f"<Segmentation {self.model_name!r}{design}: {state}; {predicts}{self._since()}>"

    def _since(self) -> str:
        """repr's words for a fit interrupted after the model it predicts with was trained or loaded."""
        return f"; since then, {self._interrupted.said()}" if self._interrupted is not None else ""

    def _start_of(self, run: Path) -> str | None:
        """What the run in ``run`` started from, where this estimator trained it (a resume carries it on)."""
        if self._interrupted is not None and self._interrupted.run == run:
            # another estimator's fit there since (overwrite, resume) is that fit's run: its start was said to be the
            # stopped fit's until the hundred-and-fifth session's review
            return None if self._interrupted.written_over() else self._interrupted.started_from
        # as of a stopped one: a finished run's folder written by another fit since holds that fit's run
        taken = self.run_dir == run and same_run_info(run_info_written(run), self._run_info_taken)
        return self._started_from if taken else None

    def _require_model(self, method: str, stacklevel: int = 3) -> Path:
        """The folder of the model to predict with; a RuntimeError said by ``method`` where there is none. Where a
        later fit was interrupted, a warning (at ``stacklevel``, the caller's line) says the model is an earlier one:
        Keras' predict after Ctrl-C in fit uses the weights the fit stopped with."""
        if self.model_dir is None and self._interrupted is not None:
            raise RuntimeError(self._interrupted.refusal(method))
        if self.model_dir is None and self._preempted is not None:
            raise RuntimeError(self._preempted.refusal(method))
        if self.model_dir is None:
            raise RuntimeError(f"{method}: this Segmentation has no trained model yet: call fit(), or "
                               f"Segmentation.load(dir)")
        # Every predict reads the model from model_dir. Another fit into the same output_dir (another
        # estimator's, or one interrupted after overwrite deleted the run) replaced or removed it, and this
        # estimator predicted with the other model, or failed on a missing file (seventy-eighth session).
        if export_fingerprint(self.model_dir) != self._model_files:
            how = f"trained in {self.run_dir}" if self.run_dir is not None else "loaded from it"
            raise RuntimeError(f"{method}: {self.model_dir} no longer holds the model this Segmentation {how}: it "
                               f"was replaced or removed since (another fit into that folder, or one stopped after "
                               f"overwrite deleted it); fit again, or Segmentation.load({str(self.model_dir)!r}) to "
                               f"predict with what it holds now{self._since()}")
        if self._interrupted is not None:
            warnings.warn(f"{method}: with {self.model_dir}, not the weights of the last fit: "
                          f"{self._interrupted.said()}", AcceleratedSegWarning, stacklevel=stacklevel)
        return self.model_dir

    def _take_model(self, directory: Path | None) -> None:
        """Predict with the export in ``directory`` (None: none) as its files are now; a relative path
        as it names a folder now, not from wherever the working folder is later."""
        self.model_dir = Path(directory).absolute() if directory is not None else None
        self._model_files = export_fingerprint(self.model_dir) if directory is not None else None


def _check_fit_arguments(dataset, epochs, train_settings: dict) -> None:
    """A ConfigError for fit's arguments as nobrainer's or Keras' fit takes them, for a ``dataset`` that is no
    Dataset with training cases, or for a keyword that is no training or optimizer setting."""
    if dataset is None and "dataset_train" in train_settings:  # nobrainer's keyword: Python's TypeError before
        raise ConfigError("fit: the Dataset is fit's first argument, fit(dataset, epochs=N), not nobrainer's "
                          "dataset_train= (its validation cases are the Dataset's own: validation_pairs)")
    if not isinstance(dataset, Dataset):
        raise ConfigError(f"fit: give a Dataset, e.g. Dataset.from_files(pairs, block_shape=(96, 96, 96), "
                          f"n_classes=2), got {type(dataset).__name__}")
    check_it_has_training_cases(dataset, "fit")
    if isinstance(epochs, Dataset) or {"dataset_validate", "validation_data"} & train_settings.keys():
        # nobrainer's fit(train, validate), Keras' fit(..., validation_data=): fifty setting names listed before
        raise ConfigError("fit: a second Dataset to validate on (nobrainer's dataset_validate) is not taken: "
                          "nor Keras' validation_data; a Dataset holds its own validation cases, so give them "
                          "as Dataset.from_files(pairs, validation_pairs=[(image, label), ...]) and fit that "
                          "one Dataset")
    refuse_unknown(train_settings, (TrainConfig, OptimConfig), "fit: {} is not a training or optimizer setting",
                    own=("epochs", "steps"))


def _resumes(stopped: InterruptedFit | None, run: Path, continues_its_run: bool, run_info_at_start) -> bool:
    """Whether a fit that began with ``run_info_at_start`` in ``run`` (run_info_written), continuing the folder's
    run or not (``_fit_run_folder``), resumed the run the ``stopped`` fit left there, as that fit left it: not a
    folder another fit wrote since, nor another folder's checkpoint (a new run there)."""
    return (continues_its_run and stopped is not None and stopped.run == run
            and same_run_info(stopped.run_info_at_stop, run_info_at_start))


def _trained_in_launched_processes(cfg: Config, manifest: Manifest, processes: int, mixed_precision: str,
                                   out: Path, names: Names) -> dict:
    """The summary of the run trained in ``processes`` processes that accelerate's ``notebook_launcher`` starts
    (the summary the run wrote), or of the run a signal preempted; a Ctrl-C or signal in a process is raised
    here as one process raises it."""
    from accelerate import notebook_launcher

    summary, launched_ns = out / "summary.json", time.time_ns()
    # garbage freed here, where its threads are, not by a forked rank (collector.forked_for_one_job)
    gc.collect()
    # the step a Ctrl-C stops the processes after, which their os._exit carries no word of: a file of this launch's
    # own, so that none is an earlier launch's (stopped_step)
    with tempfile.TemporaryDirectory(prefix="accelerated_seg_fit_") as launch_folder:
        stopped_step = Path(launch_folder) / "stopped_step.json"
        try:
            # torch's log of a shutdown this raises in its own words (Ctrl-C's, a process's death of a signal) left
            # out: its traceback of the process's status read as a second failure
            # torch elastic's log folder made in the launch's, removed with it (torch_elastic_files_in)
            with signal_handlers_kept(), preemption_sent_on(), shutdown_logged_unless_the_fit_says_it(), \
                    torch_elastic_files_in(launch_folder):
                notebook_launcher(fit_in_launched_process, (cfg, manifest, stopped_step, names),
                                  num_processes=processes, mixed_precision=mixed_precision,
                                  use_port=port_to_launch_on())
        except Exception as error:  # torch's SignalException for a signal: taken as one process takes it
            if (interrupt := interrupt_of_the_launch(error, stopped_step)) is not None:
                raise interrupt from None
            if (lost := process_lost_in_the_launch(error, processes, stopped_step)) is not None:
                # a process that died once the run had ended (gloo's abort at exit, docs/strategies.md) lost nothing
                if (ended := summary_written_since(summary, launched_ns)) is None:
                    raise lost from None
                warnings.warn(lost.after_the_run_ended(out.absolute(), ended), AcceleratedSegWarning, stacklevel=3)
                return ended
            if (preempted := preempted_summary_of_the_launch(error, summary, launched_ns)) is None:
                raise
            return preempted
    return json.loads(summary.read_text())


#: Marks the folders Segmentation.evaluate owns (and so may delete on its next call).
_EVALUATE_MARKER = ".written_by_segmentation_evaluate"


def _is_one_or_a_list_of(x, kind) -> bool:
    return isinstance(x, kind) or (isinstance(x, (list, tuple)) and len(x) > 0 and all(isinstance(p, kind) for p in x))


def _predicted_and_scored(model_dir: Path, config: dict, dataset: Dataset, out: Path, batch_size: int,
                          options: dict) -> dict:
    """``Segmentation.evaluate``'s work once its folders are made: ``dataset``'s validation cases predicted, their
    maps and references written as class indices into ``out/predictions`` and ``out/labels``, and scored there
    (``evaluate_folders``); returns the summary."""
    from .data.io import write_nifti
    from .evaluate import evaluate_folders
    from .inference import class_values, export_regions
    from .inference import preprocess_settings as export_preprocessing
    from .label_map_reading import read_label_map

    predictions, labels = out / "predictions", out / "labels"
    written = class_values(export_preprocessing(config), config["num_classes"])  # the model's value per class
    from_prediction = {int(value): index for index, value in enumerate(written)}
    regions = export_regions(config)
    # A binarized dataset's references (every value > 0 foreground, declared or not) are written as they are,
    # for evaluate_folders to merge and say so, as the command does; a region model's are merged here, since
    # evaluate_folders scores regions over the values as written
    binarized = dataset.manifest.binarized and regions is None
    merge_label = dataset.manifest.binarized and regions is not None
    from_label = {} if dataset.manifest.binarized else dataset.manifest.label_map or {}
    cases = {case.id: case for case in dataset.manifest.validation}
    # The model loaded once and the cases pipelined, as predict does for a folder (predict_file per case
    # loaded the model again for every case before the thirty-third session). Closed before the
    # temporary folder goes, so that no case is still being written into it.
    with tempfile.TemporaryDirectory() as tmp, \
            closing(_predicted(model_dir, config, cases.values(), Path(tmp), batch_size, options)) as predicted:
        for case_id, raw in predicted:
            case = cases[case_id]
            for source, lookup, merge, folder, role in ((raw, from_prediction, False, predictions, "prediction"),
                                                        (case.label, from_label, merge_label, labels, "reference")):
                image = nib.load(str(source))
                classes = as_class_indices(read_label_map(Path(source), role), lookup, merge_foreground=merge)
                write_nifti(folder / f"{case.id}.nii.gz", classes, image.affine, image.header)
    if regions is not None:  # both maps hold class indices: regions over them
        return evaluate_folders(predictions, labels, regions=regions, output_dir=out,
                                ignore_value=dataset.manifest.ignore_index)
    # named as training logged them (dice_foreground), not class_1
    names = {int(index): name for index, name in config.get("labels", {}).items()}
    return evaluate_folders(predictions, labels, num_classes=dataset.manifest.num_classes, output_dir=out,
                            ignore_value=dataset.manifest.ignore_index, class_names=names,
                            binarized_references=binarized)


#: The warnings registry of each file whose warnings ``_said_again`` says at their own line, by the file's path.
_REGISTRIES: dict[str, dict] = {}


def _said_again(raised: list[warnings.WarningMessage], method: str, stacklevel: int,
                in_the_callers_words: Callable[[str], str] = str) -> None:
    """The warnings ``raised`` (recorded) inside ``method`` said again: those about one's input (UserWarning) at the
    caller's line (``stacklevel`` as seen from the function calling this), in the caller's words and naming
    ``method``, as its errors do; warn_explicit at the line that raised one kept no registry, so a loop of predicts
    repeated each one every time, which Python's default says once. A library's deprecation notes stay where they
    were raised, which the default hides."""
    for warning in raised:
        if issubclass(warning.category, UserWarning):  # predict's were bare until the ninety-first session
            message = in_the_callers_words(str(warning.message))
            said = message if message.startswith(f"{method}: ") else f"{method}: {message}"
            warnings.warn(said, warning.category, stacklevel=stacklevel + 1)
        else:
            # with the registry of the file that raised it, as Python keeps one for each module: without one, the
            # default filter said a warning as often as it came in one call (a RuntimeWarning of each case's
            # scoring) where Python says it once (until the hundred-and-first session)
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno,
                                   module=(warning.filename or "").rsplit("/", 1)[-1].removesuffix(".py"),
                                   registry=_REGISTRIES.setdefault(warning.filename, {}))


def _predicted(model_dir: Path, config: dict, cases, folder: Path, batch_size: int, options: dict):
    """Each case's label map, predicted into ``folder`` as ``<id>.nii.gz``: yields (case id, path) in order.

    Raises:
        DataError: a case's files cannot be segmented (the first such case stops the evaluation).
    """
    from .ensemble import load_for_prediction  # as predict loads it (and warns of older preprocessing code)
    from .inference import PredictOptions, check_precision, default_device, kept_whole
    from .inference_cases import segment_cases
    from .inference_inputs import InputCase

    settings = PredictOptions(sw_batch_size=batch_size, **how_it_runs(options))
    device = default_device(options.get("device"))
    check_precision(settings.precision, device, estimator_fp32("evaluate"))
    model, _ = load_for_prediction(model_dir)
    jobs = [(InputCase(case.id, tuple(case.images)), folder / f"{case.id}.nii.gz", None) for case in cases]
    with closing(segment_cases(model.to(device), config, jobs, device=device, options=settings,
                               keep_largest=kept_whole(config, options.get("keep_largest")))) as done:
        for (case, path, _), error in done:
            if error is not None:
                raise error
            yield case.id, path
