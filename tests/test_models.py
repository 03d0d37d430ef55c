import pytest
import torch

from accelerated_seg.config import ConfigError
from accelerated_seg.models import MODELS, ModelSpec, build_from_spec, meta_network, model_spec

# Small arguments so every registry entry builds and runs forward/backward in a second or two.
SMALL = {
    "unet": ({"channels": [4, 8, 16], "strides": [2, 2]}, 16),
    "segresnet": ({"init_filters": 8}, 16),
    "swinunetr": ({"feature_size": 12, "depths": [1, 1, 1, 1]}, 64),
    "unetr": ({"hidden_size": 48, "mlp_dim": 96, "num_heads": 4, "feature_size": 8}, 32),
    "dynunet": ({"filters": [8, 16, 32]}, 16),
    # Five stride-2 stages: 64 is the smallest patch that leaves 2 voxels for the bottleneck's norm.
    "unet3d_mlperf": ({"filters": [4, 8, 8, 8, 8, 8]}, 64),
}


def test_the_configs_network_names_are_the_registrys():
    """config.py names the networks without importing MONAI, to refuse another name at once."""
    import typing

    from accelerated_seg.config import ModelConfig

    assert typing.get_args(typing.get_type_hints(ModelConfig)["name"]) == tuple(MODELS)


@pytest.mark.parametrize("name", list(MODELS))
def test_every_model_builds_and_trains_one_step(name):
    args, size = SMALL[name]
    spec = model_spec(name, in_channels=2, out_channels=3, patch_size=(size,) * 3, args=args)
    net = build_from_spec(spec)
    out = net(torch.randn(1, 2, size, size, size))
    out = out[0] if isinstance(out, (list, tuple)) else out
    assert out.shape == (1, 3, size, size, size)
    out.float().mean().backward()
    assert all(p.grad is not None for p in net.parameters() if p.requires_grad)
    # The spec is plain JSON data and rebuilds the same network with plain MONAI.
    again = build_from_spec(ModelSpec.from_dict(spec.to_dict()))
    again.load_state_dict(net.state_dict(), strict=True)


def test_unknown_model_and_unknown_argument():
    with pytest.raises(ConfigError, match="model.name 'vnet'"):
        model_spec("vnet", 1, 2, (32, 32, 32))
    with pytest.raises(ConfigError, match="model.args.*chanels"):
        model_spec("unet", 1, 2, (32, 32, 32), {"chanels": [4, 8]})


def test_patch_size_checked_against_the_network_downsampling():
    with pytest.raises(ConfigError, match="data.patch_size .*divisible by"):
        model_spec("unet", 1, 2, (40, 40, 36))  # 4 stride-2 levels need multiples of 16
    with pytest.raises(ConfigError, match="too small"):
        model_spec("swinunetr", 1, 2, (32, 32, 32))
    spec = model_spec("dynunet", 1, 2, (64, 64, 16))  # anisotropic patch -> anisotropic strides
    assert spec.args["strides"][-1][2] == 1


def reference_parameter_count(in_channels: int, classes: int, filters=(32, 64, 128, 256, 320, 320)) -> int:
    """Parameters of mlcommons/training's Unet3D (image_segmentation/pytorch/model), layer by layer.

    A block is two 3x3x3 convolutions without bias, each with an affine instance norm (weight and
    bias per channel). Each up-sampling step is a 2x2x2 transposed convolution with bias, then a
    block over [up-sampled, skip] (twice the channels). The head is a 1x1x1 convolution with bias.
    """
    def block(cin, cout):
        return 27 * cin * cout + 27 * cout * cout + 2 * (2 * cout)

    encoder = block(in_channels, filters[0]) + sum(block(a, b) for a, b in zip(filters, filters[1:]))
    backwards = filters[::-1]
    decoder = sum(8 * a * b + b + block(2 * b, b) for a, b in zip(backwards, backwards[1:]))
    return encoder + decoder + filters[0] * classes + classes


def test_unet3d_mlperf_is_the_mlperf_reference_network():
    spec = model_spec("unet3d_mlperf", in_channels=1, out_channels=3, patch_size=(128, 128, 128))
    assert spec.monai_class == "DynUNet"
    assert spec.args["filters"] == [32, 64, 128, 256, 320, 320]
    assert spec.args["strides"] == [1, 2, 2, 2, 2, 2] and spec.args["upsample_kernel_size"] == [2] * 5
    with torch.device("meta"):  # the structure and a 128^3 forward without memory or time
        net = build_from_spec(spec)
    convs = [m for m in net.modules() if isinstance(m, torch.nn.Conv3d)]
    block_convs = [m for m in convs if m.kernel_size == (3, 3, 3)]
    assert len(block_convs) == 22  # 11 blocks (input, 4 down, bottleneck, 5 up) x 2
    assert all(m.bias is None for m in block_convs)
    assert sum(m.stride == (2, 2, 2) for m in block_convs) == 5  # down-sampling by strided convolution
    encoder_widths = [m.out_channels for m in block_convs[:12]]
    assert encoder_widths == [32, 32, 64, 64, 128, 128, 256, 256, 320, 320, 320, 320]
    ups = [m for m in net.modules() if isinstance(m, torch.nn.ConvTranspose3d)]
    assert len(ups) == 5
    assert all(m.kernel_size == (2, 2, 2) and m.stride == (2, 2, 2) and m.bias is not None for m in ups)
    norms = [m for m in net.modules() if isinstance(m, torch.nn.modules.instancenorm._InstanceNorm)]
    assert len(norms) == 22 and all(m.affine for m in norms)
    acts = [m for m in net.modules() if isinstance(m, (torch.nn.LeakyReLU, torch.nn.ReLU, torch.nn.PReLU))]
    assert acts and all(isinstance(m, torch.nn.LeakyReLU) and m.negative_slope == 0.01 for m in acts)
    head = [m for m in convs if m.kernel_size == (1, 1, 1)]
    assert len(head) == 1 and head[0].out_channels == 3 and head[0].bias is not None
    count = sum(p.numel() for p in net.parameters())
    assert count == reference_parameter_count(1, 3) == 31_190_243
    out = net(torch.empty(1, 1, 128, 128, 128, device="meta"))
    assert out.shape == (1, 3, 128, 128, 128)


def test_dynunet_levels_given_in_part_name_what_the_patch_derived():
    """``strides`` alone got MONAI's "length of kernel_size and strides should be the same", which did
    not say that kernel_size came from data.patch_size (eighty-fourth session's probe)."""
    with pytest.raises(ConfigError, match=r"model.args \['strides'\] make a DynUNet of 3 levels, and \['kernel_size', "
                                          r"'upsample_kernel_size'\] were derived from data.patch_size \(32, 32, 32\) "
                                          r"for 4: give them too"):
        model_spec("dynunet", 1, 3, (32, 32, 32), {"strides": [1, 2, 2]})
    with pytest.raises(ConfigError, match=r"of 6 levels, and \['kernel_size', 'upsample_kernel_size', 'filters'\]"):
        model_spec("dynunet", 1, 3, (32, 32, 32), {"strides": [1, 2, 2, 2, 2, 2]})
    three = {"strides": [1, 2, 2], "kernel_size": [3, 3, 3], "upsample_kernel_size": [2, 2]}
    assert model_spec("dynunet", 1, 3, (32, 32, 32), three).args["filters"] == [32, 64, 128, 256]  # MONAI takes 3
    assert model_spec("dynunet", 1, 3, (32, 32, 32), {"filters": [8, 16, 32, 64, 128]}).args["filters"][0] == 8
    # a number where a list goes: named here (MONAI's constructor refused it, through check_trainable, before)
    with pytest.raises(ConfigError, match=r"model.args.kernel_size must be a list of whole numbers or of lists"):
        model_spec("dynunet", 1, 3, (32, 32, 32), {"kernel_size": 3})


@pytest.mark.parametrize("patch", [(6, 6, 6), (12, 12, 12), (8, 12, 12)])
def test_a_patch_too_small_for_dynunets_derived_strides_is_refused_naming_it(patch):
    # Fewer than two halvings: MONAI's constructor failed on an index (a traceback) or blamed model.args.
    with pytest.raises(ConfigError, match=r"data.patch_size .* is too small for model 'dynunet'.*\(16, 16, 16\)"):
        model_spec("dynunet", 1, 3, patch)
    assert model_spec("dynunet", 1, 3, (16, 16, 16)).args["strides"] == [[1, 1, 1], [2, 2, 2], [2, 2, 2]]
    assert len(model_spec("dynunet", 1, 3, (12, 12, 64)).args["strides"]) == 5  # one long axis is enough


def test_unet3d_mlperf_patch_rules():
    with pytest.raises(ConfigError, match="divisible by"):
        model_spec("unet3d_mlperf", 1, 3, (128, 128, 80))
    with pytest.raises(ConfigError, match="too small"):
        model_spec("unet3d_mlperf", 1, 3, (32, 32, 32))


@pytest.mark.parametrize("name, args", [("swinunetr", {"feature_size": 12, "depths": [1, 1, 1, 1]}),
                                        ("unet3d_mlperf", {"filters": [4, 8, 8, 8, 8, 8]})])
def test_networks_with_a_bottleneck_of_a_32nd_take_anisotropic_patches_that_train(name, args):
    """64 voxels on every axis were required: 64 x 64 x 32, whose deepest stage holds 2 x 2 x 1
    voxels and trains in MONAI, was refused (seventy-seventh session's probe)."""
    from accelerated_seg.models import check_trainable

    check_trainable(model_spec(name, 1, 3, (64, 64, 32), args), (64, 64, 32), batch=2)
    with pytest.raises(ConfigError, match=r"too small for model .*: its deepest stage is 1/32 of the patch along each "
                                          r"axis, \(1, 1, 1\) voxel\(s\) here.*use e.g. \(64, 32, 32\)"):
        model_spec(name, 1, 3, (32, 32, 32), args)


def test_unet_takes_strides_per_axis():
    """MONAI's UNet takes one stride per axis ([2, 2, 1] for thick slices); multiplying them as numbers
    was a TypeError traceback from train, plan and the estimator (seventy-seventh session's probe)."""
    from accelerated_seg.models import check_trainable

    args = {"channels": [8, 16, 32], "strides": [[2, 2, 2], [2, 2, 1]]}
    check_trainable(model_spec("unet", 1, 3, (32, 32, 16), args), (32, 32, 16), batch=2)
    with pytest.raises(ConfigError, match=r"must be divisible by \(4, 4, 2\)"):
        model_spec("unet", 1, 3, (32, 32, 15), args)


@pytest.mark.parametrize("name, args, said", [
    ("dynunet", {"strides": [[1, 1, 1], [2, 2, 2], [2, 2, 2], [2, 2]]},
     r"^model\.args\.strides\[3\] \(entry 4 of 4\) is \[2, 2\], 2 value\(s\) for 3 axes: give each entry one "
     r"number, the same on every axis, or 3 numbers, one per axis \(e\.g\. 2 or \[2, 2, 1\]\)$"),
    ("dynunet", {"kernel_size": [[3, 3, 3], [3, 3, 3, 3], [3, 3, 3], [3, 3, 3]]},
     r"^model\.args\.kernel_size\[1\] \(entry 2 of 4\) is \[3, 3, 3, 3\], 4 value\(s\) .*\(e\.g\. 3 or \[3, 3, 1\]\)$"),
    ("dynunet", {"upsample_kernel_size": [[2, 2], 2, 2]}, r"^model\.args\.upsample_kernel_size\[0\] "),
    ("unet", {"channels": [8, 16, 32], "strides": [[2, 2], [2, 2, 2]]}, r"^model\.args\.strides\[0\] \(entry 1 of 2\)"),
    ("unet", {"channels": [8, 16, 32], "strides": [2, [[2], [2], [2]]]}, r"^model\.args\.strides\[1\] "),
    ("unet3d_mlperf", {"strides": [1, 2, 2, 2, [2, 2], 2]}, r"^model\.args\.strides\[4\] \(entry 5 of 6\)")])
def test_a_level_not_of_one_number_or_one_per_axis_is_refused_naming_its_entry(name, args, said):
    """A per-axis stride of two values was an IndexError traceback from the patch check, a kernel of four values
    MONAI's "operands could not be broadcast", naming no setting (until the ninety-third session)."""
    from accelerated_seg.models import check_model_settings

    with pytest.raises(ConfigError, match=said):
        check_model_settings(name, (64, 64, 64), args)


def test_a_level_not_of_one_per_axis_is_named_as_the_caller_names_it():
    from accelerated_seg.model_folders import ESTIMATOR_NAMES

    with pytest.raises(ConfigError, match=r"^model_args\['strides'\]\[1\] \(entry 2 of 2\) is \[2, 2\]"):
        model_spec("unet", 1, 2, (32, 32, 32), {"channels": [4, 8, 16], "strides": [2, [2, 2]]}, ESTIMATOR_NAMES)


def test_the_patch_is_checked_against_the_unet_strides_monai_uses_alone():
    """MONAI's UNet leaves the strides beyond its channels' steps unused (unused_strides_warning): the patch had to
    be a multiple of them all, 16 for channels [4, 8, 16] under the default four strides, until the ninety-third
    session. The plan checks the patch as training does."""
    from accelerated_seg.models import check_trainable
    from accelerated_seg.plan import _trainable_spec

    args = {"channels": [4, 8, 16]}
    check_trainable(model_spec("unet", 1, 2, (24, 24, 20), args), (24, 24, 20), batch=2)
    assert _trainable_spec("unet", 1, 2, (24, 24, 20), args).args["strides"] == [2, 2, 2, 2]
    with pytest.raises(ConfigError, match=r"must be divisible by \(4, 4, 4\) for model 'unet' .* use \(24, 24, 8\)$"):
        model_spec("unet", 1, 2, (24, 24, 6), args)
    per_axis = {"channels": [4, 8], "strides": [[2, 2, 1], [2, 2, 2]]}  # the second unused
    assert model_spec("unet", 1, 2, (8, 8, 5), per_axis).args["strides"] == per_axis["strides"]


@pytest.mark.parametrize("args, monai_words", [
    ({"channels": [4, 8], "strides": [2]}, None),
    ({"channels": [4, 8], "strides": [2, 2, 2]}, "`len(strides) > len(channels) - 1`"),
    ({"channels": [4, 8], "strides": [2], "norm": "INSTANCE_NVFUSER"}, "`apex.normalization.InstanceNorm3dNVFuser`"),
])
def test_a_build_changes_no_warning_filter_and_leaves_monais_two_warnings_unsaid(args, monai_words):
    """build_from_spec quiets two of MONAI's warnings (a UNet's unused strides, an nvfuser norm without apex). In a
    catch_warnings, whose entry and exit reset what Python keeps of the lines that said a warning, a warning of the
    caller's said once before a build was said again after it, at every call of a loop of predict_file (which loads
    the model each time): for every network until the hundred-and-twenty-fifth session, for those MONAI warns of
    until r118's review (own_warnings.quieted). MONAI's words still unsaid, under "always" and "error" alike."""
    import warnings

    from accelerated_seg.models import nvfuser_norm_without_apex

    spec = model_spec("unet", 1, 2, (16, 16, 16), args)
    if "norm" in args and nvfuser_norm_without_apex(spec) is None:
        pytest.skip("apex's nvfuser norm is installed: MONAI says nothing of it")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        for _ in range(3):
            warnings.warn("a warning of the caller's, once at its line", UserWarning)
            build_from_spec(spec)
    assert [str(warning.message) for warning in seen] == ["a warning of the caller's, once at its line"]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        filters = list(warnings.filters)
        build_from_spec(spec)
        assert warnings.filters == filters
    assert not [w for w in seen if monai_words and monai_words in str(w.message)], [str(w.message) for w in seen]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # MONAI's own, raw
        model = build_from_spec(spec)
    if "strides" in args and len(args["strides"]) == 3:
        assert len(model.model) == 3  # down, the bottom, up: one step, the two last strides unused


@pytest.mark.parametrize("name, args, said", [
    ("unet", {"norm": "INSTANCE_NVFUSER"}, "model.args.norm INSTANCE_NVFUSER needs apex's InstanceNorm3dNVFuser"),
    ("segresnet", {"norm": "instance_nvfuser"}, "model.args.norm instance_nvfuser needs apex's"),
    ("dynunet", {"norm_name": ["INSTANCE_NVFUSER", {"affine": True}]},
     "model.args.norm_name ['INSTANCE_NVFUSER', {'affine': True}] needs apex's")])
def test_an_nvfuser_norm_without_apex_is_said_once_in_the_projects_words(name, args, said):
    """MONAI builds nn.InstanceNorm3d for it, warning in its own words at every build, once per norm layer under an
    "always" filter (17 to 25 times a network; until the ninety-third session)."""
    import warnings

    from monai.networks.utils import has_nvfuser_instance_norm

    from accelerated_seg.models import check_model_settings, network_warnings

    if has_nvfuser_instance_norm():
        pytest.skip("apex's InstanceNorm3dNVFuser is installed: MONAI builds it")
    spec = check_model_settings(name, (16, 16, 16), args)
    [warning] = network_warnings(spec, args)
    assert warning.startswith(said) and "MONAI falls back to torch's nn.InstanceNorm3d" in warning
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.filterwarnings("error", message=".*InstanceNorm3dNVFuser")
        network = build_from_spec(spec)
    assert any(isinstance(module, torch.nn.InstanceNorm3d) for module in network.modules())
    assert network_warnings(spec, {}) == []  # given by none: nothing of the user's to name


_PATCH_TOO_SMALL = "The patch is too small for this network: it trains on 32x32x32"
_ARGS_AT_FAULT = "It fails on the larger cubes tried too, 32x32x32 to 256x256x256: change model.args"
_REFUSED = ", and builds no network of them"  # MONAI's constructor: no patch at fault


@pytest.mark.parametrize("name, args, patch, reason, fix", [
    # 4 stride-2 levels: 1 voxel at the bottom
    ("unet", {}, 16, "Expected more than 1 spatial element", _PATCH_TOO_SMALL),
    # the arguments its reason names, as the command line gives them ("these model.args" until the ninety-third session)
    ("unet", {"channels": [4, 8, 16, 32], "strides": [2, 2]}, 16, r"model 'unet': MONAI's UNet refuses "
     r"model.args.channels \[4, 8, 16, 32\] with model.args.strides \[2, 2\], and builds no network of them: the "
     r"length of `strides` should equal to `len\(channels\) - 1`. Change model.args.channels or "
     r"model.args.strides$", _REFUSED),
    ("unet", {"channels": [4, 8], "strides": [2], "act": "nosuch"}, 16,  # a reason that names no argument
     r"refuses these model.args, and builds no network of them: Unsupported option 'NOSUCH'.*Change model.args$",
     _REFUSED),
    # depth 5 from the 64^3 patch, 3 filters: the strides are the patch's, and the filters given are to change
    ("dynunet", {"filters": [8, 16, 32]}, 64, r"refuses strides \[\[1, 1, 1\], \[2, 2, 2\], \[2, 2, 2\], \[2, 2, 2\], "
     r"\[2, 2, 2\]\] \(derived from data.patch_size \(64, 64, 64\)\) with model.args.filters \[8, 16, 32\], .*Change "
     r"model.args.filters$", _REFUSED),
    # strides derived from 32^3 give 3 up-sampling layers, from 64^3 four: the retry derives them again
    # (it tried 32^3's strides on every cube and blamed model.args until the seventy-fourth session)
    ("dynunet", {"deep_supervision": True, "deep_supr_num": 3}, 32, "deep_supr_num",
     "The patch is too small for this network: it trains on 64x64x64"),
    ("unet", {"channels": [4]}, 32, "no less than 2", _REFUSED),  # MONAI's own sentence ends in a full stop
    ("segresnet", {"init_filters": 4}, 32, r"num_channels \(4\) must be divisible by num_groups \(8\)", _REFUSED),
    # trained 16 "classes" and painted label values the data has none of, silently (eighty-fourth session)
    ("segresnet", {"use_conv_final": False}, 16, r"its output has 16 channels, and the run needs one per class "
                                                 r"\(or region\), 3", _ARGS_AT_FAULT),
    # MONAI's constructor raises NotImplementedError, read as the meta device's: a traceback later
    ("unet", {"channels": [4, 8], "strides": [2], "kernel_size": 4}, 32, r"Same padding not available for "
                                                                         r"kernel_size=\[4\]", _REFUSED),
])
def test_a_network_that_cannot_train_on_the_patch_is_refused_before_any_data(name, args, patch, reason, fix):
    """The message says which of the two to change: it blamed the patch for any failure, and carried
    the meta-device forward's traceback above it (until the sixty-seventh session)."""
    from accelerated_seg.models import check_trainable

    spec = model_spec(name, 1, 3, (patch,) * 3, args)  # accepted: only the shapes of a forward tell
    with pytest.raises(ConfigError, match=reason) as refused:
        check_trainable(spec, (patch,) * 3)
    assert "model.args" in str(refused.value)
    # a network that builds but cannot take it (a refused one may name a value derived from the patch)
    assert ("cannot train on data.patch_size" in str(refused.value)) == (fix != _REFUSED)
    assert ".." not in str(refused.value)
    assert fix in str(refused.value)
    assert refused.value.__cause__ is None and refused.value.__suppress_context__


@pytest.mark.parametrize("name, args, patch, said", [
    # the UNet's own stages that train, as its arguments, since the hundred-and-fourth session
    ("unet", {}, 16, r"^model 'unet' cannot train on block_shape \(16, 16, 16\) with these model_args: .*Raise "
                     r"block_shape, or give model_args fewer down-sampling stages: 3 here, model_args\['channels'\]="
                     r"\[16, 32, 64, 128\] with model_args\['strides'\]=\[2, 2, 2\]$"),
    ("segresnet", {"use_conv_final": False}, 16, r"^model 'segresnet' cannot train on block_shape .* with these "
                                                 r"model_args: .*256x256x256: change model_args$")])
def test_the_patch_check_names_the_settings_as_its_caller_does(name, args, patch, said):
    """The estimator rewrote the command line's data.patch_size and model.args in these messages with str.replace
    (which also hit any MONAI reason that held them) until the ninety-third session: its names say them now."""
    from accelerated_seg.model_folders import ESTIMATOR_NAMES
    from accelerated_seg.models import check_trainable

    spec = model_spec(name, 1, 3, (patch,) * 3, args, ESTIMATOR_NAMES)
    with pytest.raises(ConfigError, match=said):
        check_trainable(spec, (patch,) * 3, names=ESTIMATOR_NAMES)


@pytest.mark.parametrize("name, args, patch, said", [
    ("unet", {}, (16, 16, 15), r"^block_shape \(16, 16, 15\) must be divisible by \(16, 16, 16\)"),
    ("swinunetr", {}, (32, 32, 32), r"^block_shape \(32, 32, 32\) is too small for model 'swinunetr'"),
    ("dynunet", {}, (6, 6, 6), r"^block_shape \(6, 6, 6\) is too small for model 'dynunet'"),
    ("dynunet", {"strides": [[1, 1, 1], [2, 2, 2]]}, (32, 32, 32), r"^model_args \['strides'\] make a DynUNet of 2 "
                                                                   r"levels, .* derived from block_shape"),
    ("unet", {"chanels": [4, 8]}, (16, 16, 16), r"^model_args\['chanels'\] is not an argument"),
    ("unet", {"channels": "4"}, (16, 16, 16), r"^model_args\['channels'\] must be"),
    ("unetr", {"img_size": [8, 8, 8]}, (16, 16, 16), r"^model_args \['img_size'\] contradict the run: img_size is "
                                                     r"block_shape \(\[16, 16, 16\]\)\. Leave them out of model_args$")])
def test_the_network_spec_names_the_settings_as_its_caller_does(name, args, patch, said):
    """model_spec's refusals in the estimator's words, which it rewrote from the command line's until the
    ninety-third session; the command line's own are the tests above."""
    from accelerated_seg.model_folders import ESTIMATOR_NAMES

    with pytest.raises(ConfigError, match=said) as refused:
        model_spec(name, 1, 3, patch, args, ESTIMATOR_NAMES)
    assert "model.args" not in str(refused.value) and "data.patch_size" not in str(refused.value)


@pytest.mark.parametrize("name, args, patch, said", [
    ("unet", {"channels": [4, 8, 16, 32, 64, 128]}, 32, r"refuses model_args\['channels'\] \[4, 8, 16, 32, 64, 128\] "
     r"with strides \[2, 2, 2, 2\] \(the default\), .*Change model_args\['channels'\]$"),
    ("dynunet", {"filters": [8, 16, 32]}, 32, r"refuses strides \[\[1, 1, 1\], \[2, 2, 2\], \[2, 2, 2\], \[2, 2, 2\]\] "
     r"\(derived from block_shape \(32, 32, 32\)\) with model_args\['filters'\] \[8, 16, 32\], .*Change "
     r"model_args\['filters'\]$"),
    ("unet3d_mlperf", {"strides": [1, 2, 2]}, 64, r"refuses kernel_size \[3, 3, 3, 3, 3, 3\] \(the default\) with "
     r"model_args\['strides'\] \[1, 2, 2\], .*Change model_args\['strides'\]$")])
def test_an_argument_the_user_did_not_give_is_named_as_the_registrys(name, args, patch, said):
    """MONAI's refusal names arguments by its words: those the registry derived from the patch (DynUNet's strides)
    or took as its default were named as given, model_args['strides'], and to change (until the ninety-third
    session); now only what the user gave is to change."""
    from accelerated_seg.model_folders import ESTIMATOR_NAMES
    from accelerated_seg.models import check_trainable

    with pytest.raises(ConfigError, match=said):
        check_trainable(model_spec(name, 1, 3, (patch,) * 3, args), (patch,) * 3, names=ESTIMATOR_NAMES)


@pytest.mark.parametrize("patch, tried", [
    (128, "It fails on the larger cube tried too, 256x256x256: change model.args"),
    (256, r"No cube tried \(up to 256x256x256\) is larger than the patch: change model.args"),
    (512, r"No cube tried \(up to 256x256x256\) is larger than the patch: change model.args")])
def test_a_network_failing_on_a_large_patch_is_told_only_of_the_cubes_tried(patch, tried):
    """A 512^3 patch was told that the network "fails on every patch up to 256x256x256 too", none of
    which was tried: only cubes above the patch are (ninety-second session's audit)."""
    from accelerated_seg.models import check_trainable

    spec = model_spec("segresnet", 1, 3, (patch,) * 3, {"use_conv_final": False, "init_filters": 8})
    with pytest.raises(ConfigError, match=tried):
        check_trainable(spec, (patch,) * 3)


@pytest.mark.parametrize("name", list(MODELS))
def test_every_registry_network_passes_the_check_at_its_test_size(name):
    from accelerated_seg.models import check_trainable

    args, size = SMALL[name]
    check_trainable(model_spec(name, 2, 3, (size,) * 3, args), (size,) * 3, batch=2)


def test_a_check_passed_in_this_process_is_not_made_again_and_a_failure_is_said_each_time(monkeypatch):
    """The estimator checks the network before it trains, and training checks it again in the same process (the
    CPU run's memory check a third time), each a meta-device build and forward pass (ninety-ninth session)."""
    import accelerated_seg.models as models

    monkeypatch.setattr(models, "_PASSED_HERE", set(), raising=False)  # not earlier tests' passes
    passes = []
    real = models._forward_failure
    monkeypatch.setattr(models, "_forward_failure", lambda *args: passes.append(args[1:3]) or real(*args))
    args, size = SMALL["unet"]
    spec = model_spec("unet", 1, 3, (size,) * 3, args)
    assert models.constructed(spec, (size,) * 3) is not None  # built: nothing passed yet
    for _ in range(2):
        models.check_trainable(spec, (size,) * 3, batch=2)
    assert passes == [((size,) * 3, 2)]
    assert models.constructed(spec, (size,) * 3) is None  # its constructor took these arguments: not built again
    models.check_trainable(spec, (size,) * 3, batch=1)  # another batch (or patch) is another check
    assert passes == [((size,) * 3, 2), ((size,) * 3, 1)]
    failing = model_spec("segresnet", 1, 3, (256,) * 3, {"use_conv_final": False, "init_filters": 8})
    for _ in range(2):
        with pytest.raises(ConfigError, match="cannot train"):
            models.check_trainable(failing, (256,) * 3)
    assert passes[2:] == [((256,) * 3, 1)] * 2


def test_what_the_data_decides_is_not_a_model_argument():
    with pytest.raises(ConfigError, match=r"\['in_channels', 'out_channels'\] contradict the run: in_channels is "
                                          r"the number of image channels \(1\); out_channels is the number of "
                                          r"outputs, classes or regions \(3\)"):
        model_spec("unet", 1, 3, (32, 32, 32), {"out_channels": 5, "in_channels": 2})
    with pytest.raises(ConfigError, match=r"img_size is data.patch_size \(\[32, 32, 32\]\)"):
        model_spec("unetr", 1, 3, (32, 32, 32), {"img_size": [64, 64, 64]})
    # "spatial_dims is 3 (3)" until the ninety-second session
    with pytest.raises(ConfigError, match=r"spatial_dims is the volumes' number of axes \(3\)\. Leave"):
        model_spec("unet", 1, 3, (32, 32, 32), {"spatial_dims": 2})
    # Repeating what the run decides is harmless.
    assert model_spec("unetr", 1, 3, (32, 32, 32), {"img_size": (32, 32, 32), "spatial_dims": 3, "out_channels": 3})
    with pytest.raises(ConfigError, match=r"for example use \(32, 32, 32\)"):  # not 16: one voxel at the bottom
        model_spec("unet", 1, 3, (20, 20, 20))


@pytest.mark.parametrize("name", sorted(SMALL))
def test_the_meta_network_leaves_the_random_generator_as_it_found_it(name):
    """SwinUNETR's meta network is built on the CPU and moved, which drew from torch's generator. The
    CPU run's host-memory check builds it on the main process alone, so the ranks then built their
    networks from different states, and FSDP2 trained a mix of two initialisations (seventieth session)."""
    args, patch = SMALL[name]
    spec = model_spec(name, 1, 2, [patch] * 3, args)
    torch.manual_seed(0)
    before = torch.get_rng_state()
    meta_network(spec)
    assert torch.equal(torch.get_rng_state(), before)
