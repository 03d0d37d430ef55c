"""What a resume changed from the config of the run that wrote its checkpoint, read from the two
runs' configs alone (named resume_settings.py until the ninety-fifth session). What it may not
change: the optimizer (its saved state is another optimizer's), how the optimizer's parameter groups
were made (train.head_only_steps, train.init_into), the regions the outputs stand for, the embedded
phantoms it trained on (data.synthetic) and a step beyond train.max_steps.

Torch-free, so that ``accelerated-seg train`` and examples/train.py refuse such a resume before the
imports, and ``train()`` before the data work and the Accelerator, as it refuses a mistyped setting.
Until the sixtieth session these refusals came from the resume itself: after the imports, the check
of every case, the preprocessing, the model's preparation (and DeepSpeed's engine).

Also what a resume changed: ``check_resume_settings`` lists it from the configs, and for ``fit``,
which has none, ``fit_settings_changed`` from the settings its checkpoints save; ``train``'s
run_info.json keeps it for each resume of the run (``resumes_of_the_course``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from .config import Config, ConfigError, settings_changed
from .model_folders import STEP_DIR, Names, saved_by_fit
from .schedule import lr_multiplier
from .shell_words import shell_word
from .wording import counted

# fit's settings as its trackers were given them (``run_records.fit_hparams``), saved into each of its checkpoints:
# fit has no config (its checkpoints' config.yaml is empty), so until the ninetieth session a resume had nothing
# to compare its own with.
FIT_SETTINGS_FILE = "fit_settings.json"


def check_resume_settings(checkpoint: Path, config_yaml: str, names: Names = Names()) -> dict[str, tuple]:
    """Raise where this run's settings (``config_yaml``, as ``dump_config`` writes it) cannot continue
    ``checkpoint``'s run; otherwise return ``{key: (saved, now)}`` for each setting that differs
    (``settings_changed``: nothing for ``fit``'s checkpoints, which hold no config; ``fit_settings_changed``).
    ``names``: how the refusals name the settings (the estimator's keywords since the ninety-second session).

    Raises:
        ConfigError: naming the setting, its value in the checkpoint's run and here, and the way on.
    """
    if config_yaml and saved_by_fit(checkpoint):
        # train builds its network from a config, and fit's was the user's own: the load refused it after
        # the data work (the demo's phantoms written), by its tensors' names, pointing to that empty file
        raise ConfigError(
            f"cannot resume from {checkpoint}: it was saved by train.fit with a network of your own, which this "
            f"package cannot build: resume it with fit(..., resume={str(checkpoint)!r}) and that network")
    changed = settings_changed(checkpoint / "config.yaml", config_yaml, moved=run_folder_moved(checkpoint))
    if "optim.optimizer" in changed:  # else torch loads one's state into the other and fails at the first step
        saved, asked = changed["optim.optimizer"]
        raise ConfigError(
            f"cannot resume from {checkpoint}: it was trained with {names.setting('optim.optimizer')} {saved} and "
            f"holds {saved}'s state, and this run asks for {asked}. Resume with "
            f"{names.set_to('optim.optimizer', saved)}, or start a new run from its weights "
            f"({names.setting('train.init_from')}) with a fresh {asked} and schedule")
    if "train.init_into" in changed and yaml.safe_load(config_yaml)["train"]["head_only_steps"]:
        # head_only_steps' groups: the layers outside the part where it is set, else the output layers
        saved, asked = changed["train.init_into"]
        raise ConfigError(
            f"cannot resume from {checkpoint}: it trained with {names.set_to('train.init_into', saved)}, and its "
            f"optimizer state is grouped for that by {names.setting('train.head_only_steps')}; this run asks for "
            f"{asked}. Resume with {names.set_to('train.init_into', saved)}")
    if "train.head_only_steps" in changed and 0 in changed["train.head_only_steps"]:
        # one param group against two (parameter_groups): torch would refuse the optimizer's state, unnamed
        saved, asked = changed["train.head_only_steps"]
        raise ConfigError(
            f"cannot resume from {checkpoint}: it trained with {names.set_to('train.head_only_steps', saved)}, and "
            f"its optimizer state is grouped for that; this run asks for {asked}. Resume with "
            + (f"{names.set_to('train.head_only_steps', saved)} (after step {saved} it holds nothing back)" if saved
               else f"{names.set_to('train.head_only_steps', 0)}: only a fine-tuning run's start trains its output "
                    f"layers alone"))
    # The embedded phantoms are written from data.synthetic: other settings are other cases under the same
    # names (a new seed passed the split check as the same cases), and in the checkpoint's own folder they
    # were written over its run's before that check refused another number of them.
    phantoms = [key for key in changed if key.startswith("data.synthetic.")]
    if phantoms and yaml.safe_load(config_yaml)["data"]["dataset"] == "synthetic":
        raise ConfigError(
            f"cannot resume from {checkpoint}: its run trained on the embedded phantoms as "
            + ", ".join(f"{key}={changed[key][0]}" for key in phantoms) + ", and this run asks for "
            + ", ".join(f"{key}={changed[key][1]}" for key in phantoms) + ": other phantoms than its weights "
            "trained and were validated on (written over its own, in its folder). Resume with the checkpoint's "
            "data.synthetic, or start a new run from its weights (train.init_from)")
    # the outputs would mean something else than what the checkpoint's network learned
    if outputs := [key for key in changed if key == "data.region_order" or key.split(".")[:2] == ["data", "regions"]]:
        raise ConfigError(
            f"cannot resume from {checkpoint}: its network learned other regions than this run asks for ("
            + "; ".join(f"{names.setting(key)} {changed[key][0]} there, {changed[key][1]} here" for key in outputs)
            + f"). Resume with the checkpoint's {names.setting('data.regions')}, or start a new run from its weights "
              f"({names.setting('train.init_from')})")
    return changed


def refuse_a_train_checkpoint_in_fit(checkpoint: Path) -> None:
    """Raise where ``fit`` is given a checkpoint of ``train``'s (also the estimator's, whose fit trains through
    ``train``): its non-empty config.yaml builds its network, and fit's is the user's own. No caller of fit
    resumes one. Until the ninety-first session the load refused it by its tensors' names, after the
    launch's preparation, telling the user to start the new network in another train.output_dir.

    Raises:
        ConfigError: what the checkpoint is, and the ways on: train's resume, or its exported weights.
    """
    config = Path(checkpoint) / "config.yaml"
    if not config.is_file() or saved_by_fit(checkpoint):  # fit's, or older than config.yaml: the load decides
        return
    run = Path(checkpoint).parent.parent
    raise ConfigError(
        f"fit: cannot resume from {checkpoint}: it was saved by a run of accelerated-seg train (or the estimator, "
        f"Segmentation.fit), whose network its config.yaml builds, not by fit with a network of your own. Resume it "
        f"with that run: accelerated-seg train --config {shell_word(config)} --train.resume={shell_word(checkpoint)} "
        f"(Segmentation.fit(..., resume=...) for the estimator's); or start your network from its exported weights, "
        f"{run / 'model' / 'model.safetensors'} (`accelerated-seg export {shell_word(checkpoint)} --output FOLDER` "
        f"writes this step's), loaded with safetensors.torch.load_model, and fit it into another checkpoint_dir")


def saved_fit_settings(checkpoint: Path) -> dict | None:
    """The settings of ``fit`` that ``checkpoint`` saved (``FIT_SETTINGS_FILE``); None where it saved none
    (train's checkpoints, fit's older ones). Read before the load: a checkpoint of a run still training
    may be rotated away once loaded, and a resume then noted no change (until the ninety-second session)."""
    try:
        return json.loads((Path(checkpoint) / FIT_SETTINGS_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def fit_settings_changed(saved: dict | None, settings: dict) -> dict[str, tuple]:
    """``{key: (saved, now)}`` for each of ``fit``'s ``settings`` that differs from those its checkpoint
    ``saved`` (``saved_fit_settings``); none where it saved none.

    ``fit.lr`` is left out: the optimizer state loaded from the checkpoint carries its rate on, whatever
    the optimizer given was built with, and under a schedule the rate there is the step's, not a setting.
    """
    if saved is None:
        return {}
    return {key: (saved.get(key), now) for key, now in sorted(settings.items())
            if key != "fit.lr" and saved.get(key) != now}


def resumes_of_the_course(checkpoint: Path, step: int, changed: dict) -> list[dict]:
    """``run_info.json``'s ``resumes`` after a resume of ``checkpoint`` at ``step`` that ``changed``
    these settings (``{key: (saved, now)}``): those the run_info.json of the checkpoint's run folder
    records before ``step``, then this one, each ``{"checkpoint", "step", "settings_changed": {key:
    [saved, now]}}``, the checkpoint's path absolute.

    A history rather than the latest resume alone: run_info.json and config.yaml are written anew at
    every start, so a run resumed once with a lower rate and then again as it was would read as trained
    at the lower rate throughout. Resumes recorded at or after ``step`` were of a course this one leaves
    (set aside, or the same checkpoint resumed again) and are not kept. A checkpoint outside a run
    folder, or one whose run_info.json records none (written before they were recorded), starts the
    history here.
    """
    recorded = _recorded_resumes(checkpoint.parent.parent / "run_info.json") \
        if checkpoint.parent.name == "checkpoints" else []
    # JSON's own values: a setting's value from YAML is one already, anything else as text
    plain = {key: json.loads(json.dumps([saved, now], default=str)) for key, (saved, now) in changed.items()}
    # absolute, as config.yaml names the run's paths: as given, it was relative to where the resume ran (until the
    # ninety-fourth session)
    return ([resume for resume in recorded if resume["step"] < step]
            + [{"checkpoint": os.path.abspath(checkpoint), "step": step, "settings_changed": plain}])


def _recorded_resumes(run_info: Path) -> list[dict]:
    """The ``resumes`` ``run_info`` records; none where it is not there or not readable as written (a
    record, not worth refusing a resume for)."""
    try:
        resumes = json.loads(run_info.read_text(encoding="utf-8")).get("resumes")
    except (OSError, ValueError, AttributeError):
        return []
    if not isinstance(resumes, list):
        return []
    return [resume for resume in resumes if isinstance(resume, dict) and isinstance(resume.get("step"), int)]


def run_folder_moved(checkpoint: Path) -> tuple[Path, Path] | None:
    """``(was, now)``: the run folder of ``checkpoint`` (``<run>/checkpoints/step_N``) as its run wrote
    it and as this run reaches it, where the two differ: the project was moved or copied (to a
    cluster's scratch, another mount) or renamed since, or is reached through a link. None where they
    are the same or its config.yaml does not say (``fit``'s checkpoints, a config from before the
    paths were written absolute).

    Its config.yaml names every path absolute (``config.with_absolute_paths``), so after a move each
    one the run had under the moved folder (the dataset, the cache, the run itself) differed from
    this run's, and a resume in the moved project listed them all as changed settings, though only
    the folder had changed (eightieth session). ``config.settings_changed`` leaves out those that
    moved with it.
    """
    if checkpoint.parent.name != "checkpoints":
        return None
    saved = saved_train_setting(checkpoint, "output_dir")
    if not isinstance(saved, str) or not os.path.isabs(saved):  # an older config: relative as typed
        return None
    was, now = Path(os.path.normpath(saved)), Path(os.path.abspath(checkpoint.parent.parent))
    return None if was == now else (was, now)


def saved_train_setting(checkpoint: Path, name: str):
    """``train.<name>`` as the run that wrote ``checkpoint`` saved it in the checkpoint's config.yaml;
    None where that does not say (``fit``'s checkpoints hold none)."""
    try:
        return yaml.safe_load((checkpoint / "config.yaml").read_text(encoding="utf-8"))["train"][name]
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        return None


def check_resume_length(checkpoint: Path, max_steps: int, names: Names = Names()) -> None:
    """Raise where ``checkpoint`` (a ``step_N`` folder) is beyond the ``max_steps`` this run asks for.

    From the folder's name, so that it is refused before the data work: a refusal after it (from
    the loaded state) had, for the demo, written its phantoms anew where data.synthetic changed too.
    """
    found = STEP_DIR.match(Path(checkpoint).name)
    if found and int(found.group(1)) > max_steps:
        raise beyond_max_steps(checkpoint, int(found.group(1)), max_steps, names)


def beyond_max_steps(checkpoint: Path, step: int, max_steps: int, names: Names = Names()) -> ConfigError:
    """The refusal of a resume from ``step`` into a run of ``max_steps``, in the caller's words (``names``): every
    caller's settings in one parenthesis, and fit(init_from=<the checkpoint>) as the new run, which
    check_initial_weights refuses, until the hundred-and-fourth session."""
    return ConfigError(
        f"{checkpoint} is at step {step}, beyond the {counted(max_steps, 'optimizer step')} this run asks for "
        f"({names.length}): a resumed run goes on from its step and cannot go back. Ask for more than "
        f"{counted(step, 'step')} to train on, or start a new run from its weights: "
        f"{names.way_to_a_new_run_from(checkpoint)}")


def changed_settings_note(checkpoint: Path, changed: dict, names: Names = Names()) -> str:
    """What a resume says of the settings it ``changed`` from ``checkpoint``'s run, ``{key: (saved, now)}``, each
    as ``names`` says it (the estimator's keywords; its config's keys until the ninety-second session)."""
    return (f"resuming with settings other than {checkpoint}'s, this run's from here on: "
            + "; ".join(f"{names.setting(key)} {saved} -> {now}" for key, (saved, now) in changed.items()))


def saved_max_steps(checkpoint: Path) -> int | None:
    """The ``train.max_steps`` of the run that wrote ``checkpoint``; None where its config does not say
    (fit's checkpoints hold none)."""
    saved = saved_train_setting(checkpoint, "max_steps")
    return saved if isinstance(saved, int) else None


def another_length_note(saved: int | None, cfg: Config, lr: float, step: int,
                         names: Names = Names()) -> str | None:
    """What a resume with another ``train.max_steps`` than its checkpoint's run's, ``saved``
    (``saved_max_steps``), does to the learning rate, else None.

    The schedule decays to ``train.max_steps``, so lengthening a run recomputes it over the new length
    and the rate jumps: a probe's 10-step cosine resumed at step 10 to run 20 steps went from 0.00145
    to 0.00673, 4.7 times, and nothing said so (seventy-fourth session). Both rates are this run's
    ``lr`` (batch scaled) and optim settings at the next step, over the two lengths, so the figures
    show what the length alone changes (another ``optim.lr`` is listed apart). Resuming with the
    length it was written with is the usual case and says nothing. fit's checkpoints hold no config.yaml.
    """
    if saved is None or saved == cfg.train.max_steps:
        return None
    if step >= cfg.train.max_steps:  # nothing trains: no rate goes on ("nothing to train" said that already)
        return None
    if cfg.optim.min_lr_ratio == 1.0:  # no decay: the length changes nothing
        return None
    schedule = (f"{names.setting('train.max_steps')} {saved} -> {cfg.train.max_steps}: the learning-rate schedule "
                f"({cfg.optim.schedule}, after {counted(cfg.optim.warmup_steps, 'warm-up step')}) now decays over "
                f"{counted(cfg.train.max_steps, 'step')}")
    if step < cfg.optim.warmup_steps:  # the warm-up does not depend on the length: "0.00055 where ... 0.00055"
        return (f"{schedule}, not {saved}; at step {step} both are still warming up, at a rate of "
                f"{lr * lr_multiplier(step, cfg.optim, saved):.3g}")
    if step == cfg.optim.warmup_steps:  # both decays start at the peak here: "0.002 where ... gives 0.002"
        return (f"{schedule}, not {saved}; at step {step}, where the warm-up ends, both give a rate of "
                f"{lr * lr_multiplier(step, cfg.optim, saved):.3g}, and this run's decays from there")
    now, before = (lr * lr_multiplier(step, cfg.optim, length) for length in (cfg.train.max_steps, saved))
    return (f"{schedule}, so training goes on at a rate of {now:.3g} where the checkpoint's own schedule gives "
            f"{before:.3g}")
