"""The channel names nnU-Net reads as a normalization scheme, beside the one normalization applied here.

nnU-Net v2 chooses each channel's normalization from its name in dataset.json's ``channel_names``: ``CT``
clips and scales by the dataset's foreground intensities, ``noNorm`` leaves the channel as stored,
``rescale_to_0_1`` and ``rgb_to_0_1`` scale it into [0, 1], and any other name is z-scored. Here one
normalization (``data.normalization``, ``auto`` resolved) applies to every channel alike, so a channel named
``noNorm`` (a mask or a prior given as an input) was z-scored, and a CT channel beside an MR one was
z-scored with it, without a word (ninety-sixth session's probe of an nnU-Net user's dataset).
"""

from __future__ import annotations

from collections.abc import Mapping

# nnU-Net's scheme of each name it reads (matched ignoring case), in this package's words; "zscore" is the
# scheme of every other name, and of the name itself.
_NNUNET_SCHEMES = {
    "ct": "ct",
    "nonorm": "none",
    "rescale_to_0_1": "rescale to [0, 1]",
    "rgb_to_0_1": "divide by 255",
}
_WHAT_NNUNET_DOES = {
    "ct": "clips it to its foreground's intensity percentiles and z-scores those",
    "none": "leaves it as stored",
    "rescale to [0, 1]": "rescales it to [0, 1]",
    "divide by 255": "divides it by 255",
}
_WHAT_IS_DONE_HERE = {"zscore": "z-scored (mean and spread of its nonzero voxels)",
                      "ct": "clipped to data.ct_window and scaled to [-1, 1]"}


def nnunet_scheme(channel_name: str) -> str:
    """The normalization nnU-Net v2 gives a channel of this name: ``zscore`` unless the name is one of its
    schemes' (``CT``, ``noNorm``, ``rescale_to_0_1``, ``rgb_to_0_1``, in any case)."""
    return _NNUNET_SCHEMES.get(str(channel_name).strip().lower(), "zscore")


def schemes_not_followed(channels: Mapping[int, str], normalization: str, json_name: str,
                         chosen: bool = False) -> str | None:
    """The warning for the channels named by an nnU-Net scheme other than ``normalization`` (the resolved
    ``data.normalization``), which this run applies to every channel; None where there is none. A name that
    is no scheme (``T1``) is z-scored by nnU-Net, and left unsaid under a ``ct`` the user chose for it; so is a
    ``CT`` channel under a normalization ``chosen`` (``data.normalization`` given, not ``auto``): the user's
    choice. A scheme this package has no normalization for (``noNorm``) is said whatever was chosen."""
    unsaid = {"zscore", normalization, *(("ct",) if chosen else ())}
    differing = [(index, name, nnunet_scheme(name)) for index, name in sorted(channels.items())
                 if nnunet_scheme(name) not in unsaid]
    if not differing:
        return None
    told = "; ".join(f"{index:04d} ({name}), where nnU-Net {_WHAT_NNUNET_DOES[scheme]}"
                     for index, name, scheme in differing)
    done = _WHAT_IS_DONE_HERE.get(normalization, normalization)
    return (f"{json_name}'s channel_names name {len(differing)} channel(s) by an nnU-Net normalization scheme that "
            f"this run does not apply: {told}. Here one normalization, data.normalization ({normalization}, as "
            f"resolved), applies to every channel alike, so each is {done}: there is no per-channel normalization, "
            f"and a channel so normalized keeps its contrast (a 0/1 mask stays two levels), not its scale. Name "
            f"the channel by its modality to silence this, or leave it out of channel_names and imagesTr if "
            f"the network must see its values as stored")
