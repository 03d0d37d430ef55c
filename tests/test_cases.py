"""data.cases' names of channels: those nothing names (unnamed_channels), the one test of such a name
(is_unnamed_channel) that resume and init_from use, and how a channel is said in messages."""

from accelerated_seg.data import cases
from accelerated_seg.resume_network_and_data import channel_name_differences


def test_every_name_unnamed_channels_makes_is_recognised_as_unnamed_and_a_users_name_is_not():
    made = [name for count in range(1, 13) for name in cases.unnamed_channels(count).values()]
    assert made[:4] == ["image", "image_0", "image_1", "image_0"]
    assert all(cases.is_unnamed_channel(name) for name in made)
    for name in ("T1", "images", "image_", "image_x", "Image_0", "image0", "image_1a", "image_²", "my_image_0"):
        assert not cases.is_unnamed_channel(name), name


def test_resume_compares_no_name_that_data_cases_gives_a_channel_nothing_names(monkeypatch):
    """resume_network_and_data spelled the names of unnamed channels with a pattern of its own, image(_\\d+)?, beside
    the unnamed_channels that makes them, until the hundred-and-twenty-second session (helper h119): one renamed,
    the other would have compared a new Dataset's unnamed channels with a checkpoint's named ones. Renamed here,
    both follow."""
    assert channel_name_differences({"0": "image_0", "1": "FLAIR"}, {"0": "T1", "1": "image_1"}) == []
    assert channel_name_differences({"0": "T2"}, {"0": "T1"}) == ["channel 0: T2 there, T1 here"]
    monkeypatch.setattr(cases, "UNNAMED_CHANNEL", "scan")
    assert cases.unnamed_channels(2) == {0: "scan_0", 1: "scan_1"}
    for made in (cases.unnamed_channels(1), cases.unnamed_channels(2)):
        named = {str(index): "T1" for index in made}
        assert channel_name_differences({str(index): name for index, name in made.items()}, named) == [], made
        assert channel_name_differences(named, {str(index): name for index, name in made.items()}) == [], made
    assert channel_name_differences({"0": "image_0"}, {"0": "T1"}) == ["channel 0: image_0 there, T1 here"]


def test_a_channel_is_said_by_its_index_and_name_and_a_lone_one_by_its_name():
    assert cases.channel_said(1, "FLAIR") == "channel 1 (FLAIR)"
    assert cases.one_channel_said("MRI0") == "one channel (MRI0)"
