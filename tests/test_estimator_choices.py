"""A value a Python caller chooses from a fixed list, misspelt, is offered the closest of the list, as a
misspelt keyword is; and the network's arguments are named as the caller wrote them (model_args['channels']
to the estimator, model.args.channels in a config). Found by probing the estimator (ninety-fifth session)."""

import pytest

from accelerated_seg.config import ConfigError, load_config
from accelerated_seg.estimator import Segmentation
from accelerated_seg.models import check_arg_names
from accelerated_seg.predict_options import unknown_precision


@pytest.mark.parametrize("keywords, meant", [
    (dict(model="unett"), "unet"),
    (dict(precision="bf61"), "bf16"),
    (dict(loss="dicee"), "dice"),
    (dict(optimizer="adamm"), "adamw"),
    (dict(schedule="cosin"), "cosine"),
    # MONAI's and accelerate's spellings were offered nothing (or a choice of the same case, 'dice' for 'Dice'
    # alone) until the ninety-sixth session; offered, not taken, so that a config holds one spelling
    (dict(model="UNet"), "unet"),
    (dict(model="SwinUNETR"), "swinunetr"),
    (dict(precision="BF16"), "bf16"),
    (dict(loss="DiceCE"), "dice_ce"),
    (dict(loss="Generalized-Dice"), "generalized_dice"),
    (dict(optimizer="AdamW"), "adamw"),
])
def test_a_misspelt_choice_of_segmentation_is_offered_the_closest(keywords, meant):
    with pytest.raises(ConfigError, match=rf"^Segmentation: .*\(did you mean '{meant}'\?\)"):
        Segmentation(**keywords)


def test_a_choice_in_another_case_is_offered_in_a_config_and_to_predict():
    from accelerated_seg.predict_options import mirror_axes

    assert "(did you mean 'bf16'?)" in unknown_precision("BF16")
    with pytest.raises(ValueError, match=r"\(did you mean 'axes'\?\)"):
        mirror_axes("AXES")


def test_a_misspelt_choice_of_dataset_augment_is_offered_the_closest(tiny_dataset):
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.estimator import Dataset

    pairs = [(str(case.images[0]), str(case.label)) for case in load_msd(tiny_dataset).training]
    data = Dataset.from_files(pairs, block_shape=16, n_classes=3)
    with pytest.raises(ConfigError, match=r"^Dataset.augment: profile must be .*; got 'heavvy' "
                                          r"\(did you mean 'heavy'\?\)"):
        data.augment("heavvy")
    with pytest.raises(ConfigError, match=r"^Dataset.augment: on must be .*; got 'GPU' \(did you mean 'gpu'\?\)"):
        data.augment(on="GPU")


def test_a_misspelt_choice_far_from_every_name_is_told_the_list_alone():
    with pytest.raises(ConfigError) as raised:
        Segmentation(model="transformer")
    assert "did you mean" not in str(raised.value) and "unet, segresnet" in str(raised.value)


def test_a_misspelt_config_choice_is_offered_the_closest(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("train:\n  loss: dicee\n")
    with pytest.raises(ConfigError, match=r"train\.loss must be one of .*; got 'dicee' \(did you mean 'dice'\?\)"):
        load_config(path)


def test_a_misspelt_predict_precision_and_tta_are_offered_the_closest():
    from accelerated_seg.predict_options import mirror_axes

    assert "(did you mean 'bf16'?)" in unknown_precision("bf61")
    with pytest.raises(ValueError, match=r"tta 'axis' is not known; .*\(did you mean 'axes'\?\)"):
        mirror_axes("axis")


def test_a_wrong_typed_network_argument_is_named_as_the_caller_wrote_it():
    with pytest.raises(ConfigError, match=r"^Segmentation: model_args\['channels'\] must be a list of whole numbers"):
        Segmentation(model_args={"channels": "x"})
    with pytest.raises(ConfigError, match=r"^model\.args\.channels must be a list of whole numbers"):
        check_arg_names("unet", {"channels": "x"})  # a config's words, where the network is specified


def test_an_unknown_network_argument_is_named_as_the_caller_wrote_it():
    with pytest.raises(ConfigError, match=r"^Segmentation: model_args\['channel'\] is not an argument of "
                                          r"monai\.networks\.nets\.UNet \(did you mean 'channels'\?\)"):
        Segmentation(model_args={"channel": [1, 2]})


@pytest.mark.parametrize("keyword, value", [("keep_largest", True), ("device", "cpu"), ("tta", "axes"),
                                            ("overlap", 0.5), ("aggregate_on_cpu", True)])
def test_a_predict_option_given_to_the_estimator_is_told_it_goes_to_predict_and_evaluate(tiny_dataset, keyword,
                                                                                         value):
    """keep_largest=True was offered keep_last (the checkpoints a run keeps), device='cpu' multi_gpu=True, and tta=
    the fifty training settings alone (the thirteenth new user's walk, h153)."""
    from accelerated_seg.data.manifest import load_msd
    from accelerated_seg.estimator import Dataset

    told = (rf"is not a {{}} setting but an option of predict and evaluate: give it there, "
            rf"model\.predict\(x, \.\.\., {keyword}=\.\.\.\) or model\.evaluate\(dataset, \.\.\., {keyword}=\.\.\.\)")
    training = told.format("training or optimizer")
    with pytest.raises(ConfigError, match=rf"^Segmentation: {keyword} {training}") as raised:
        Segmentation("unet", **{keyword: value})
    assert "did you mean" not in str(raised.value)
    pairs = [(str(case.images[0]), str(case.label)) for case in load_msd(tiny_dataset).training]
    with pytest.raises(ConfigError, match=rf"^fit: {keyword} {training}"):
        Segmentation("unet").fit(Dataset.from_files(pairs, block_shape=16, n_classes=3), steps=1, **{keyword: value})
    with pytest.raises(ConfigError, match=rf"^Dataset.from_files: {keyword} {told.format('data')}"):
        Dataset.from_files(pairs, block_shape=16, n_classes=3, **{keyword: value})


@pytest.mark.parametrize("keyword, meant", [("keep_largst", "keep_largest"), ("keeplargest", "keep_largest"),
                                            ("overlaps", "overlap"), ("devise", "device")])
def test_a_misspelt_predict_option_given_to_the_estimator_is_offered_that_option_not_a_training_setting(keyword,
                                                                                                      meant):
    """keep_largst=True was offered keep_last (the checkpoints a run keeps) and overlaps=0.5 sw_overlap (validation's),
    the fault the option itself was told until the hundred-and-twenty-eighth session, one letter off (the review
    r131); a training setting misspelt is still offered itself."""
    told = (rf"^Segmentation: {keyword} is not a training or optimizer setting; did you mean '{meant}', an option of "
            rf"predict and evaluate: give it there, model\.predict\(x, \.\.\., {meant}=\.\.\.\)")
    with pytest.raises(ConfigError, match=told):
        Segmentation("unet", **{keyword: 1})
    with pytest.raises(ConfigError, match=r"^Segmentation: keep_lst is not a training or optimizer setting \(did you "
                                          r"mean 'keep_last'\?\)"):
        Segmentation("unet", keep_lst=1)
    with pytest.raises(ConfigError, match=r"^Segmentation: devices is not a training or optimizer setting \(did you "
                                          r"mean Segmentation\(model, multi_gpu=True\)\?\)"):
        Segmentation("unet", devices=2)  # Lightning's, which means multi_gpu here, not predict's device
