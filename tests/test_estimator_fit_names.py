"""``names=`` of Segmentation.fit, Dataset.fit and fit: the words their messages say the ways on in, a script's flags
in place of their Python keywords. Until the hundred-and-twenty-seventh session none took its caller's, and a stopped
examples/estimator.py or fit_your_own.py said its fit's Python call above the script's own line (review r121; the
scripts' own stops are in tests/test_stopping_md_examples.py)."""

import dataclasses

import pytest
import torch
from monai.losses import DiceCELoss
from monai.networks.nets import UNet
from torch.utils.data import DataLoader, TensorDataset

from accelerated_seg.config import ConfigError
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.estimator import Dataset, Segmentation
from accelerated_seg.model_folders import ESTIMATOR_NAMES, FIT_NAMES, Names, callers_names
from accelerated_seg.train import fit

SCRIPT = {"resume": "--resume latest", "resume_again": "run the same command with --resume latest",
          "overwrite": "--overwrite", "overwrite_again": "--overwrite", "elsewhere": "another --out"}


@pytest.mark.parametrize("given, told", [
    (3, "fit: names must be a dict of the words its messages say in place of its own, such as {'resume_again': "
        "'run the same command with --resume latest'} (Names' fields), or a Names (accelerated_seg.model_folders), "
        "got 3"),
    ("--resume latest", "fit: names must be a dict of the words its messages say in place of its own, such as "
                        "{'resume_again': 'run the same command with --resume latest'} (Names' fields), or a Names "
                        "(accelerated_seg.model_folders), got '--resume latest'"),
    ({"resume_agian": "--resume latest"}, "fit: names['resume_agian'] is not one of the words its messages say (did "
                                          "you mean 'resume_again'?); give Names' fields (accelerated_seg."
                                          "model_folders.Names): resume, elsewhere, overwrite, folder, prefix, "),
    ({"resume_again": 3}, "fit: names['resume_again'] must be a str, the words said, got 3"),
    ({"global_batch": "no"}, "fit: names['global_batch'] must be True or False, got 'no'"),
    ({"renamed": [("train.resume",)]}, "fit: names['renamed'] must be (config key, your name) pairs, such as "
                                       "[('train.resume', '--resume')], got [('train.resume',)]"),
    ({"model_of_the_state": "export {stpe}"}, "fit: names['model_of_the_state'] is a template that may name {folder}, "
                                              "{export}, {step} alone (double a brace said as it is: {{ }}), got "
                                              "'export {stpe}' (KeyError: 'stpe')"),
], ids=["a number", "a str", "a misspelt field", "a field's number", "a bool's str", "a pair of one", "a template"])
def test_names_that_are_no_names_are_refused_by_each_fit_in_one_line_before_anything_is_written(
        given, told, tiny_dataset, tmp_path):
    """The estimator's fit refuses a ``names`` it cannot say its messages in, naming the argument, before the cache
    or the run folder is made; Dataset.fit and fit the same, each by its own name. A template naming what its
    message does not give would have been a KeyError at the stop, after the training."""
    manifest = load_msd(tiny_dataset)
    pairs = [(str(c.images[0]), str(c.label)) for c in manifest.training]
    data = Dataset.from_files(pairs, block_shape=16, n_classes=3, validation_pairs=[], num_workers=0,
                              cache_dir=str(tmp_path / "cache")).batch(2)
    with pytest.raises(ConfigError) as refused:
        Segmentation("unet", output_dir=str(tmp_path / "run"), val_every=0).fit(data, steps=1, names=given)
    assert str(refused.value).startswith(told), refused.value
    with pytest.raises(ConfigError) as refused:
        data.fit(max_steps=1, output_dir=str(tmp_path / "run"), val_every=0, names=given)
    assert str(refused.value).startswith(told.replace("fit: ", "Dataset.fit: ", 1)), refused.value
    model = UNet(3, 1, 2, channels=(4, 8), strides=(2,))
    loader = DataLoader(TensorDataset(torch.randn(2, 1, 16, 16, 16), torch.zeros(2, 1, 16, 16, 16).long()),
                        batch_size=2)
    with pytest.raises(ConfigError) as refused:
        fit(model, loader, DiceCELoss(to_onehot_y=True, softmax=True), torch.optim.AdamW(model.parameters()),
            max_steps=1, checkpoint_dir=tmp_path / "run", progress_bar=False, names=given)
    assert str(refused.value).startswith(told), refused.value
    assert not (tmp_path / "run").exists() and not (tmp_path / "cache").exists()


def test_names_given_say_their_words_over_the_callers_own_and_none_keeps_them():
    """A dict's fields in place of the caller's own, the rest kept (the estimator's keywords for its settings); a
    Names taken as it is, its renamed pairs made tuples (a dict's lists too); None: the caller's own."""
    names = callers_names(SCRIPT, ESTIMATOR_NAMES, "fit")
    assert names == dataclasses.replace(ESTIMATOR_NAMES, **SCRIPT)
    assert names.setting("train.save_every") == "save_every" and names.length == "fit's epochs or steps"
    assert callers_names(None, FIT_NAMES, "fit") is FIT_NAMES
    given = Names(resume_again="run it again")
    assert callers_names(given, FIT_NAMES, "fit") == given
    renamed = callers_names({"renamed": [["train.resume", "--resume"]]}, FIT_NAMES, "fit")
    assert renamed.renamed == (("train.resume", "--resume"),) and renamed.setting("train.resume") == "--resume"


def test_a_template_is_checked_with_the_types_its_message_gives():
    """A template naming an attribute or format of what its message gives (``{export.name}``: a Path, ``{step:d}``:
    an int) is taken and said; one its message cannot say is one ConfigError naming ``names``. Until review r128
    each was checked with "" for every name: ``{step:d}`` was refused, ``{folder.name}`` escaped as an
    AttributeError's traceback, and ``{export.name}`` with it, which the stop's line says."""
    from pathlib import Path

    names = callers_names({"model_of_the_state": "export {export.name} of {folder} at {step:d}"}, FIT_NAMES, "fit")
    assert names.model_of_the_state.format(folder="run", export=Path("run/model"), step=4) == "export model of run at 4"
    with pytest.raises(ConfigError, match=r"^fit: names\['model_of_the_state'\] is a template that may name "
                                          r"\{folder\}, \{export\}, \{step\} alone .*AttributeError"):
        callers_names({"model_of_the_state": "{folder.name}"}, FIT_NAMES, "fit")


def test_a_dicts_renamed_pairs_go_over_the_callers_own():
    """A script naming one setting its way (``("train.save_every", "it saves every 100 steps")``, examples/
    estimator.py's) keeps the estimator's others: block_shape, model_args. Until review r128 a dict's ``renamed``
    replaced the caller's pairs whole, and the estimator's messages then said ``patch_size`` for its block_shape."""
    names = callers_names({"renamed": [("train.save_every", "it saves every 100 steps")]}, ESTIMATOR_NAMES, "fit")
    assert names.setting("train.save_every") == "it saves every 100 steps"
    assert names.setting("data.patch_size") == "block_shape" and names.setting("model.args") == "model_args"
    assert callers_names({"renamed": [("data.patch_size", "--patch")]}, ESTIMATOR_NAMES, "fit").renamed[0] == \
        ("data.patch_size", "--patch")
