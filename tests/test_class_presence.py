"""Outputs that no training or no validation case holds once preprocessed are named before training
(data/class_presence.py): one the resampling erased was scored "dice 1.0000" unsaid."""

import json

from accelerated_seg.config import load_config
from accelerated_seg.data.class_presence import absent_outputs, class_presence_warnings
from accelerated_seg.regions import Regions
from accelerated_seg.train import train

from conftest import tiny_overrides

NAMES = ["liver (label 1)", "pancreas (label 2)", "adrenal (label 5)"]


def test_an_output_absent_from_a_split_is_named_with_what_it_does_there():
    training = [[40, 3, 0], [35, 0, 0]]  # voxels per foreground class, case by case
    validation = [[38, 0, 2]]
    assert absent_outputs(training, None) == [2] and absent_outputs(validation, None) == [1]
    untrained, unscored = class_presence_warnings(NAMES, None, training, validation, (3.0, 3.0, 6.0))
    assert untrained.startswith("warning: adrenal (label 5) is in no training case once preprocessed: the network "
                                "cannot learn it. A structure smaller than a voxel of the 3 x 3 x 6 mm grid can "
                                "vanish in the resampling")
    assert unscored.startswith("warning: pancreas (label 2) is in no validation case once preprocessed: validation "
                               "scores each such one 1 while the network predicts it nowhere and 0 once it predicts "
                               "a voxel of it, which moves the mean Dice, and which step is kept as best_model, by "
                               "up to 1/3 each")
    # Absent from both: one warning, not two; nothing validated: nothing said of validation.
    (nowhere,) = class_presence_warnings(NAMES, None, [[1, 0, 1]], [[2, 0, 4]], None)
    assert nowhere.startswith("warning: pancreas (label 2) is in no case once preprocessed: the network cannot learn "
                              "it, and validation scores each such one 1") and "the stored grid" in nowhere
    assert class_presence_warnings(NAMES, None, [[1, 1, 1]], None, None) == []
    # Regions over class indices: a region is held where any of its classes is.
    regions = Regions(("whole", "core"), ((1, 2), (2,)), (1, 2))
    assert absent_outputs([[5, 0, 0]], regions) == [1]
    (core,) = class_presence_warnings(["region whole", "region core"], regions, [[5, 1, 0]], [[5, 0, 0]], None)
    assert core.startswith("warning: region core is in no validation case once preprocessed")


def test_training_names_a_declared_class_no_case_holds_and_the_check_says_how_it_is_scored(tiny_dataset, tmp_path,
                                                                                           capsys):
    description = json.loads(tiny_dataset.read_text())
    description["labels"]["3"] = "cyst"  # declared, in no label file
    declared = tiny_dataset.with_name("dataset_with_a_cyst.json")
    declared.write_text(json.dumps(description))
    train(load_config(None, tiny_overrides(declared, tmp_path / "run", train__max_steps=1, train__val_every=1,
                                           train__save_every=0)))
    said = capsys.readouterr().out
    assert "warning: cyst (label 3) is in no case once preprocessed: the network cannot learn it" in said
    assert "declared label value(s) [3] appear in none of the 9 label file(s) checked; a class never seen cannot " \
           "be learned, and validation and evaluate score it 1 wherever the network predicts none of it" in said
    assert "in no training case" not in said and "in no validation case" not in said  # ventricles, lesion: in both
