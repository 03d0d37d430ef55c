"""FSDP2 units that return a view: torch's warning about them, checked for the run instead of shown.

``fully_shard`` hooks each unit's output tensors so that the unit's parameters are gathered again
before its backward. torch warns (2.13 and 2.14, since pytorch#181850; 2.11 does not) at the first
forward, once per unit class, when a unit returns a view: "An in-place op on this view ... will
silently drop the pre-backward hook and skip the all-gather, which can cause backward to fail or
produce wrong gradients". An in-place op on a view rewrites the view's autograd history, and the
hook goes with the old one.

MONAI's instance norm returns a view (``F.instance_norm`` reshapes its input to one batch of
batch x channels), and the in-place LeakyReLU after it keeps it one. So in every FSDP2 run
DynUNet's and the MLPerf U-Net's blocks, and SwinUNETR's and UNETR's residual blocks, warned of
wrong gradients from an in-place op that their forward never makes: the registry's networks change
no block's output in place. But a size-based profile with a low ``fsdp_min_num_params`` can make
units of smaller modules, and then it is true: the MLPerf U-Net's affine instance norms (640
parameters at most) return views that its in-place LeakyReLU changes.

So training decides it before the volumes are preprocessed, for the units the launch's policy will
make: one forward of a copy of the network on the meta device (shapes only, no compute) records each
module's output and its version counter, which every in-place op on a tensor, on its base or on
another view of it advances; a view whose counter moved by the end of the forward was changed in
place. A unit with such an output stops the run with an error naming it. Otherwise none of the
warnings can come true, and they are silenced for the run (``quiet_view_warnings``). ``fit`` has no
example input and leaves torch's warning as it is, for a network of the user's own.
"""

from __future__ import annotations

import contextlib
import functools
import re
import warnings

import torch
from torch import nn

from .config import ConfigError
from .wrapping import forward_on_a_meta_copy

# torch's message (torch/distributed/fsdp/_fully_shard/_fsdp_state.py), matched from its start.
_TORCH_VIEW_WARNING = re.escape("FSDP2-wrapped module (") + r".*" + re.escape(") returned a view tensor.")


def views_changed_in_place(model: nn.Module, example_shape: tuple[int, ...]) -> list[str] | None:
    """Names of the modules with parameters whose output, a view, a later op of the same forward
    changes in place; None where the meta forward is not possible (an op without a meta kernel).

    The forward runs on a copy of ``model`` on the meta device (``wrapping.forward_on_a_meta_copy``).
    """
    outputs: dict[str, list[tuple[torch.Tensor, int]]] = {}

    def note_the_views(probe: nn.Module) -> None:
        for name, module in probe.named_modules():
            if next(module.parameters(), None) is not None:
                module.register_forward_hook(functools.partial(_note_views, outputs, name))

    if not forward_on_a_meta_copy(model, example_shape, note_the_views):
        return None  # torch's warning stays as it is
    return [name for name, views in outputs.items() if any(view._version != version for view, version in views)]


def _note_views(outputs: dict, name: str, module, args, output) -> None:
    tensors = output if isinstance(output, (list, tuple)) else [output]
    views = [(t, t._version) for t in tensors if isinstance(t, torch.Tensor) and t._base is not None]
    # A module called twice (a shared activation) keeps every call's outputs.
    outputs.setdefault(name, []).extend(views)


def planned_units(plugin, model: nn.Module) -> list[str]:
    """Names of the modules that accelerate's FSDP2 prepare will shard as units, the root ("") last:
    its own policy, built as ``prepare`` builds it (after ``wrapping.fsdp2_valid_units_only`` and
    ``fill_fsdp_wrap_classes``), over the modules it visits."""
    from accelerate.utils.fsdp_utils import fsdp2_prepare_auto_wrap_policy, get_module_children_bottom_up

    policy = fsdp2_prepare_auto_wrap_policy(plugin, model)
    names = {id(module): name for name, module in model.named_modules()}
    chosen = [names[id(m)] for m in get_module_children_bottom_up(model)[:-1] if policy is not None and policy(m)]
    return [*chosen, ""]


def check_fsdp2_units(plugin, model: nn.Module, example_shape: tuple[int, ...]) -> bool:
    """Refuse units whose output is a view changed in place (module docstring); True when none is,
    so that torch's warnings about units returning views are known to be false for this run, False
    when the meta forward could not tell.

    Raises:
        ConfigError: naming the first such unit, its size, and the profile settings that avoid it.
    """
    changed = views_changed_in_place(model, example_shape)
    if changed is None:
        return False
    modules = dict(model.named_modules())
    # An activation-checkpoint wrapper returns what the block inside it returns.
    inner = {name: f"{name}._checkpoint_wrapped_module" if f"{name}._checkpoint_wrapped_module" in modules else name
             for name in planned_units(plugin, model)}
    hit = [unit for unit, module in inner.items() if module in changed]
    if hit:
        sizes = {unit: sum(p.numel() for p in modules[unit].parameters()) for unit in hit}
        unit = hit[0]
        raise ConfigError(
            f"FSDP2 would make {unit or 'the root'} ({type(modules[inner[unit]]).__name__}, {sizes[unit]:,} parameters) "
            f"a unit, but its output is a view that a later op of the forward changes in place (as an in-place "
            f"activation does), which drops the hook that gathers the unit's parameters for its backward: a failure "
            f"or wrong gradients. {len(hit)} unit(s) are so, the largest with {max(sizes.values()):,} parameters: "
            f"raise fsdp_min_num_params in the accelerate config to at least that, or use "
            f"configs/accelerate/fsdp2_blocks.yaml (one unit per network block)")
    return True


@contextlib.contextmanager
def quiet_view_warnings():
    """Silence torch's warning about FSDP2 units that return views, for a run whose units
    ``check_fsdp2_units`` found untouched; the filters in effect before come back at the end."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_TORCH_VIEW_WARNING, category=UserWarning)
        yield
