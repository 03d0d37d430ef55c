"""parameters_on_meta: an export's check builds its network with parameters on the meta device in its own thread
alone (accelerate's init_empty_weights, which it replaced, did so for the whole process)."""
import json
import threading

import torch
from torch import nn

from accelerated_seg import exported_model
from accelerated_seg.parameters_on_meta import parameters_on_meta
from test_inference import export


def test_a_network_built_in_another_thread_while_an_export_is_checked_has_its_parameters_in_memory(
        tmp_path, monkeypatch):
    """Review r126's race made certain: as the check builds its network, another thread builds one; with the
    replacement process-wide, its parameters were on the meta device."""
    model_dir = export(tmp_path / "model")
    config = json.loads((model_dir / "config.json").read_text())
    built_meanwhile = []
    build = exported_model.build_exported_network

    def build_while_another_thread_builds(*args):
        other = threading.Thread(target=lambda: built_meanwhile.append(nn.Conv3d(1, 2, 3)))
        other.start()
        other.join()
        return build(*args)

    monkeypatch.setattr(exported_model, "build_exported_network", build_while_another_thread_builds)
    exported_model.check_export_fits(model_dir, config)
    assert built_meanwhile[0].weight.device.type == "cpu"
    assert nn.Module.register_parameter is not None and nn.Conv3d(1, 1, 1).weight.device.type == "cpu"


def test_parameters_go_to_meta_inside_and_buffers_stay_real_and_the_last_thread_out_puts_torchs_own_back():
    torchs_own = nn.Module.register_parameter
    first_inside, second_inside, second_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def second():
        with parameters_on_meta():
            second_inside.set()
            first_inside.wait(10)
        second_out.set()

    with parameters_on_meta():
        other = threading.Thread(target=second)
        other.start()
        second_inside.wait(10)
        norm = nn.BatchNorm3d(2)
        seen["parameter"], seen["buffer"] = norm.weight.device.type, norm.running_mean.device.type
    first_inside.set()
    second_out.wait(10)
    other.join()
    assert seen == {"parameter": "meta", "buffer": "cpu"}
    # the first thread left before the second: the replacement stayed for it, then went with it
    assert nn.Module.register_parameter is torchs_own
    assert nn.Linear(2, 2).weight.device.type == "cpu" and isinstance(nn.Linear(2, 2).weight, nn.Parameter)
    assert torch.nn.Linear(2, 2).weight.requires_grad
