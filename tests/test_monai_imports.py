"""MONAI without transformers' BERT and scipy.signal, and with matplotlib.pyplot run at its first use
(accelerated_seg/monai_imports.py): measured in benchmarks/results/monai_import_2cpu.json,
monai_import_scipy_signal_2cpu.json and monai_import_pyplot_2cpu.json, checked here for what it must
and must not change."""

import importlib
import importlib.metadata
import json
import os
import subprocess
import sys

import pytest


def _installed(distribution: str) -> bool:
    """Whether it is installed: transformers is, as the test extra has it (accelerate's DeepSpeed path
    imports it), though hidden from this process by tests/startup/sitecustomize.py."""
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _run(code: str) -> dict:
    """``code`` in a fresh process that can import transformers (tests/startup/sitecustomize.py hides it)."""
    env = {**os.environ, "ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS": "0"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not _installed("transformers"), reason="transformers is not installed")
def test_only_the_modules_that_ask_go_without_transformers_and_scipy_signal_which_load_for_anyone_else():
    seen = _run("import json, sys\n"
                "import accelerated_seg.train\n"
                "before = sorted(m for m in sys.modules if m.split('.')[0] == 'transformers' or\n"
                "                m.startswith('scipy.signal'))\n"
                "import monai.networks.nets as nets\n"
                "import monai.data.ultrasound_confidence_map as ultrasound\n"
                "import monai.transforms.signal.array as signal_transforms\n"
                "errors = []\n"
                "for use in (lambda: nets.Transchex(in_channels=1, img_size=(32, 32), num_classes=2,\n"
                "                                   patch_size=(16, 16), num_language_layers=1,\n"
                "                                   num_vision_layers=1, num_mixed_layers=1),\n"
                "            lambda: ultrasound.hilbert([1.0, 2.0]), lambda: signal_transforms.iirnotch(50, 30)):\n"
                "    try:\n"
                "        use()\n"
                "        errors.append('')\n"
                "    except Exception as e:\n"
                "        errors.append(str(e))\n"
                # anyone else's import (accelerate's DeepSpeed integration of transformers) loads it
                "import scipy.signal, transformers\n"
                "print(json.dumps({'before': before, 'errors': errors,\n"
                "                  'after': [transformers.__name__, scipy.signal.__name__]}))")
    assert seen["before"] == [] and seen["after"] == ["transformers", "scipy.signal"], seen
    transchex, ultrasound, signal_transforms = seen["errors"]
    assert "transformers is not imported for MONAI's Transchex by accelerated_seg" in transchex, seen
    assert "scipy.signal is not imported for MONAI's UltrasoundConfidenceMapTransform" in ultrasound, seen
    assert "scipy.signal is not imported for MONAI's signal transforms" in signal_transforms, seen


def test_monai_features_the_package_never_uses_go_without_their_packages_which_load_for_anyone_else():
    seen = _run("import json\n"
                "import accelerated_seg.train\n"
                "import monai.handlers.tensorboard_handlers as handlers\n"
                "import monai.metrics.panoptic_quality as panoptic\n"
                "import monai.networks.nets.resnet as resnet\n"
                "import monai.data.dataset as monai_datasets\n"
                "import monai.data.ultrasound_confidence_map as ultrasound\n"
                "import monai.networks.nets.dints as dints\n"
                "import monai.visualize.img2tensorboard as summaries\n"
                "errors = []\n"
                # a writer's method looked up, not a writer made (which writes runs/ where the process is)
                "for use in (lambda: summaries.SummaryWriter.add_scalar, summaries.Summary,\n"
                "            lambda: handlers.SummaryWriter.add_scalar,\n"
                "            lambda: panoptic.linear_sum_assignment([[1.0]]),\n"
                "            lambda: resnet.hf_hub_download.__name__, lambda: monai_datasets.pd.read_csv,\n"
                "            lambda: ultrasound.spsolve.__name__, lambda: dints.dijkstra.__name__):\n"
                "    try:\n"
                "        use()\n"
                "        errors.append('')\n"
                "    except Exception as e:\n"
                "        errors.append(str(e))\n"
                # anyone else's import (accelerate's TensorBoard tracker in a run's main process) loads them
                "import huggingface_hub.file_download, pandas, scipy.optimize, torch.utils.tensorboard\n"
                "import scipy.sparse.csgraph, scipy.sparse.linalg\n"
                "print(json.dumps({'errors': errors,\n"
                "                  'after': [torch.utils.tensorboard.__name__, scipy.optimize.__name__,\n"
                "                            huggingface_hub.file_download.hf_hub_download.__name__,\n"
                "                            pandas.read_csv.__name__, scipy.sparse.linalg.spsolve.__name__,\n"
                "                            scipy.sparse.csgraph.dijkstra.__name__]}))")
    assert seen["after"] == ["torch.utils.tensorboard", "scipy.optimize", "hf_hub_download", "read_csv", "spsolve",
                             "dijkstra"], seen
    writer, summary, handlers_writer, panoptic, medicalnet, csv, ultrasound, dints = seen["errors"]
    assert "torch.utils.tensorboard is not imported for MONAI's TensorBoard image summaries" in writer, seen
    assert "tensorboard is not imported for MONAI's TensorBoard image summaries" in summary, seen
    assert "torch.utils.tensorboard is not imported for MONAI's TensorBoard handlers" in handlers_writer, seen
    assert "scipy.optimize is not imported for MONAI's PanopticQualityMetric" in panoptic, seen
    assert "huggingface_hub is not imported for MONAI's MedicalNet weights of its ResNet" in medicalnet, seen
    assert "pandas is not imported for MONAI's CSVDataset" in csv, seen
    assert "scipy.sparse.linalg is not imported for MONAI's UltrasoundConfidenceMapTransform" in ultrasound, seen
    assert "scipy.sparse.csgraph is not imported for MONAI's DiNTS topology search" in dints, seen


def test_monai_imported_before_the_package_is_left_as_it_is(monkeypatch):
    """Whoever needs MONAI's Transchex (or its signal transforms) imports monai first: then no finder
    is put in place."""
    from accelerated_seg import monai_imports

    importlib.import_module("monai")  # as such a user would have (in this process it is already)

    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path
                                           if not isinstance(f, monai_imports._WithoutUnusedOptionals)])
    monai_imports.install()
    assert not any(isinstance(f, monai_imports._WithoutUnusedOptionals) for f in sys.meta_path)


@pytest.mark.skipif(not _installed("matplotlib"), reason="matplotlib is not installed (the viz extra)")
def test_pyplot_imported_by_monai_runs_at_its_first_use_and_is_then_the_module_a_plain_import_gives():
    seen = _run("import json, sys, types\n"
                "import accelerated_seg.train\n"
                "pyplot = sys.modules['matplotlib.pyplot']\n"
                "before = [type(pyplot).__name__, 'figure' in vars(pyplot)]\n"
                "import numpy as np\n"
                "from monai.optimizers import lr_finder\n"
                "from monai.visualize import matshow3d\n"
                "fig, _ = matshow3d(np.zeros((4, 8, 8)), show=False)  # MONAI's helper, drawing with it\n"
                "import matplotlib.pyplot as plt\n"
                "print(json.dumps({'before': before, 'fig': type(fig).__name__,\n"
                "                  'after': [type(plt) is types.ModuleType, plt is pyplot is lr_finder.plt,\n"
                "                            type(plt.__loader__).__name__, type(plt.__spec__.loader).__name__],\n"
                "                  'figures': plt.get_fignums()}))")
    assert seen["before"] == ["_LoadedOnFirstUse", False], seen  # imported by MONAI, not run
    assert seen["fig"] == "Figure" and seen["figures"] == [1], seen
    assert seen["after"] == [True, True, "SourceFileLoader", "SourceFileLoader"], seen


@pytest.mark.skipif(not _installed("matplotlib"), reason="matplotlib is not installed (the viz extra)")
def test_pyplot_imported_by_anyone_but_monai_runs_at_once():
    seen = _run("import json, sys, types\n"
                "import accelerated_seg  # the finder in place, MONAI not imported yet\n"
                "import matplotlib.pyplot as plt\n"
                "print(json.dumps({'monai': 'monai' in sys.modules, 'plain': type(plt) is types.ModuleType,\n"
                "                  'figure': 'figure' in vars(plt)}))")
    assert seen == {"monai": False, "plain": True, "figure": True}, seen


# Modules that only the code of a package MONAI imports for features that neither training nor predict
# uses would import (monai_imports.py): present, that code ran at the import of a worker's entry modules
_RUN_ONLY_BY_THE_PACKAGE = {"matplotlib": "matplotlib.rcsetup", "torch.utils.tensorboard": "torch.utils.tensorboard",
                            "tensorboard": "tensorboard", "scipy.optimize": "scipy.optimize",
                            "scipy.sparse.linalg": "scipy.sparse.linalg", "scipy.sparse.csgraph": "scipy.sparse.csgraph"}
# ... and those that a training process imports anyway, with datasets (its case table), but predict never
_RUN_BY_TRAINING_ALONE = {"pandas": "pandas", "huggingface_hub's download": "huggingface_hub.file_download"}


def test_the_entry_modules_of_training_and_predict_processes_run_none_of_those_packages():
    """Predict (and a launched rank of it) imports the modules predict_command.run imports; a training
    rank accelerated_seg.train, which imports datasets with the stack (training_data.py). The saving per
    process (README, Tests) stays only while this holds."""
    seen = _run("import json, sys\n"
                "def ran(packages):\n"
                "    return sorted(package for package, module in packages.items() if module in sys.modules)\n"
                "import accelerated_seg.inference, accelerated_seg.inference_outputs\n"
                "import accelerated_seg.inference_distributed\n"
                f"predict = ran({{**{_RUN_ONLY_BY_THE_PACKAGE!r}, **{_RUN_BY_TRAINING_ALONE!r}}})\n"
                "import accelerated_seg.train\n"
                f"train = ran({_RUN_ONLY_BY_THE_PACKAGE!r})\n"
                "print(json.dumps({'predict': predict, 'train': train, 'datasets': 'datasets' in sys.modules}))")
    assert seen == {"predict": [], "train": [], "datasets": True}, f"run at the import of the entry modules: {seen}"
