"""Run as: cd <worktree> && PYTHONPATH=<worktree> timeout 300 /work/main/.venv/bin/python \
    benchmarks/results/review_channel_words_2026-12-07/unnamed_probe.py \
    > benchmarks/results/review_channel_words_2026-12-07/unnamed_probe.txt
Review of h119, question (c): data.cases.is_unnamed_channel against the pattern resume had (image(_\\d+)?, fullmatch,
Unicode \\d) on names an export or checkpoint written before may hold, and on every name "image_" + one character
(0 to 0x10FFFF) and "image_" + two; and what resume says of a channel a user named "image" (before and after)."""
import re
import sys

from accelerated_seg.data.cases import is_unnamed_channel, unnamed_channels
from accelerated_seg.resume_network_and_data import channel_name_differences

old = re.compile(r"image(_\d+)?")
names = ["image", "image_0", "image_1", "image_3", "image_12", "image_0000", "image_", "images", "Image_0", "IMAGE",
         "image0", "image_1a", "image_x", " image_0", "image_0 ", "image_0\n", "my_image_0", "image__0", "image_-1",
         "image_+1", "T1", *(name for count in range(1, 13) for name in unnamed_channels(count).values())]
names += [f"image_{chr(code)}" for code in range(sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF]
names += [f"image_{a}{b}" for a in "0123456789٣１²" for b in "0123456789٣１²"]
parted = [name for name in names if bool(old.fullmatch(name)) != is_unnamed_channel(name)]
print(f"{len(names)} names; taken for no name by the old pattern and not by is_unnamed_channel, or the other way: "
      f"{len(parted)}")
ascii_parted = [name for name in parted if name.isascii()]
print(f"  of them ASCII: {len(ascii_parted)}; the others hold a decimal digit of another script (old: no name; now "
      f"compared), e.g. {[name for name in parted[:3]]} ... {[name for name in parted[-3:]]}")
print("resume of a checkpoint whose one channel a user named 'image', this run's named 'CT':",
      channel_name_differences({"0": "image"}, {"0": "CT"}), "(the old pattern: the same, 'image' taken for no name)")
print("resume of a checkpoint of unnamed image_0, image_1, this run's T1, FLAIR:",
      channel_name_differences({"0": "image_0", "1": "image_1"}, {"0": "T1", "1": "FLAIR"}))
print("resume of a checkpoint of a user's image_3 at channel 0, this run's T1:",
      channel_name_differences({"0": "image_3"}, {"0": "T1"}), "(old pattern: the same)")
