"""The cases in predict's inputs: files, folders and patterns, channels grouped by nnU-Net's naming
(``inference_inputs``), and the outputs predict may write (``inference_outputs``, ``predict_marks``), each imported
from ``inference_files`` as before its split where it is public. No voxels are read: the files are empty unless a
test needs a header."""

import json
import re
import sys

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.data.errors import DataError
from accelerated_seg.inference_files import expand_inputs, group_cases, output_paths


def touch(folder, *names):
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"")
    return folder


# Where DataLad leaves a file it has not fetched: a link into the dataset's .git/annex that leads nowhere
ANNEX_LINK = "../../.git/annex/objects/Xk/3v/SHA256E-s7264--4d7a.nii.gz/SHA256E-s7264--4d7a.nii.gz"


def test_expand_inputs_reads_files_folders_and_patterns_once_each(tmp_path):
    folder = touch(tmp_path / "scans", "b.nii.gz", "a.nii", "notes.txt", ".a.nii.gz.123.tmp.nii.gz")
    files = expand_inputs([folder, str(folder / "*.nii*"), folder / "b.nii.gz"])
    assert [p.name for p in files] == ["a.nii", "b.nii.gz"]
    # one file by two spellings (relative and absolute, through ..) counts once too
    spelled = expand_inputs([folder / "a.nii", folder / ".." / "scans" / "a.nii"])
    assert spelled == [folder / "a.nii"] and [c.id for c in group_cases(spelled, 1)] == ["a"]
    (folder / "c.nii").symlink_to(folder / "a.nii")  # another name of the same file: a case of its own
    assert [p.name for p in expand_inputs([folder / "a.nii", folder / "c.nii"])] == ["a.nii", "c.nii"]
    with pytest.raises(DataError, match="no such file or folder"):
        expand_inputs([tmp_path / "nowhere"])
    with pytest.raises(DataError, match="holds no .nii"):
        expand_inputs([str(tmp_path / "scans" / "*.mha")])
    with pytest.raises(DataError, match="not a NIfTI file name.*dcm2niix"):
        expand_inputs([folder / "notes.txt"])
    with pytest.raises(DataError, match="not a NIfTI file name.*mri_convert"):  # FreeSurfer's, a nobrainer user's
        expand_inputs([touch(tmp_path / "fs", "brain.mgz") / "brain.mgz"])
    # a format nnU-Net reads, given by name, is told the line a folder of them is told, named for it (review of the
    # hundred-and-fifth session; "dcm2niix or SimpleITK" alone before)
    with pytest.raises(DataError, match=re.escape("SimpleITK.ReadImage('a_0000.mha'), 'a_0000.nii.gz')")):
        expand_inputs([touch(tmp_path / "mha", "a_0000.mha") / "a_0000.mha"])
    with pytest.raises(DataError, match="not a NIfTI file name.*dcm2niix -z y <folder>"):
        expand_inputs([touch(tmp_path / "dicom", "slice_001.dcm") / "slice_001.dcm"])


def test_a_dataset_json_is_told_the_folder_of_its_test_images_not_to_be_converted(tmp_path):
    """``predict Task09_Spleen/dataset.json``, for the scans its "test" list names, was told to convert the
    JSON with dcm2niix or SimpleITK (ninety-seventh session's probe). It is told the folder of those scans."""
    touch(tmp_path / "imagesTs", "spleen_1.nii.gz", "spleen_7.nii.gz")
    described = tmp_path / "dataset.json"
    listed = ["./imagesTs/spleen_1.nii.gz", "./imagesTs/spleen_7.nii.gz"]
    described.write_text(json.dumps({"training": [], "test": listed}))
    with pytest.raises(DataError) as raised:
        expand_inputs([described])
    assert str(raised.value) == (f"{described}: a dataset's description, not a scan; predict takes the scans: "
                                 f"its \"test\" list's 2 are in {tmp_path / 'imagesTs'}/, give that folder")
    described.write_text(json.dumps({"training": []}))  # no test list to tell of: the scans, in general
    with pytest.raises(DataError, match=re.escape(f"{described}: a dataset's description, not a scan; predict "
                                                  f"takes the scans: NIfTI files, their folder or a pattern")):
        expand_inputs([described])
    described.write_text("{not json")
    with pytest.raises(DataError, match=re.escape(f"{described}: a JSON file, not a scan; predict takes the scans: "
                                                  f"NIfTI files, their folder or a pattern")):
        expand_inputs([described])
    touch(tmp_path / "model", "config.json", "model.safetensors")  # an export's: its folder is --model's
    with pytest.raises(DataError, match=re.escape(f"config.json: an exported model's config.json, not a scan: its "
                                                  f"folder is the model, --model {tmp_path / 'model'}")):
        expand_inputs([tmp_path / "model" / "config.json"])


def test_a_datasets_own_folder_is_told_its_test_images_not_a_pattern_over_its_labels(tmp_path):
    """``predict Task09_Spleen`` was told to give "a quoted pattern such as 'Task09_Spleen/*/spleen_1.nii.gz'",
    which predicts its training images and its label maps as scans (ninety-seventh session's probe)."""
    touch(tmp_path / "imagesTr", "spleen_1.nii.gz")
    touch(tmp_path / "labelsTr", "spleen_1.nii.gz")
    touch(tmp_path / "imagesTs", "spleen_7.nii.gz")
    (tmp_path / "dataset.json").write_text(json.dumps({"training": [], "test": ["./imagesTs/spleen_7.nii.gz"]}))
    with pytest.raises(DataError) as raised:
        expand_inputs([tmp_path])
    assert str(raised.value) == (f"folder {tmp_path} holds no .nii/.nii.gz file itself: it is a dataset's folder "
                                 f"(its dataset.json); predict takes the scans: its \"test\" list's 1 are in "
                                 f"{tmp_path / 'imagesTs'}/, give that folder")


def test_a_datasets_labels_folder_is_refused_as_scans_naming_the_images_folder_beside_it(tmp_path, monkeypatch):
    """``predict Task09_Spleen/labelsTs/`` predicted the reference label maps as if they were scans, without a
    word (ninety-seventh session). Refused from the paths alone (before predict loads a model), naming the
    images' folder beside it; a pattern over its files takes them as scans, as asked."""
    labels = touch(tmp_path / "Task09_Spleen" / "labelsTs", "spleen_7.nii.gz")
    images = touch(tmp_path / "Task09_Spleen" / "imagesTs", "spleen_7.nii.gz")
    with pytest.raises(DataError) as raised:
        expand_inputs([labels])
    assert str(raised.value) == (
        f"folder {labels} is a dataset's labelsTs/, its reference label maps, not scans: the scans are in "
        f"{images}/ beside it, give that folder; to segment its files as scans all the same, give them as a "
        f"quoted pattern, '{labels / '*.nii.gz'}'")
    assert expand_inputs([str(labels / "*.nii.gz")]) == [labels / "spleen_7.nii.gz"]
    monkeypatch.chdir(labels)  # "." is the folder too
    with pytest.raises(DataError, match=re.escape("folder . is a dataset's labelsTs/")):
        expand_inputs(["."])
    training = touch(tmp_path / "flat" / "labelsTr", "case_1.nii.gz")  # no imagesTr/ beside it: the layout's name
    with pytest.raises(DataError, match=re.escape(f"folder {training} is a dataset's labelsTr/, its reference label "
                                                  f"maps, not scans: give the scans' folder (imagesTr/ in that "
                                                  f"layout)")):
        expand_inputs([training])
    assert len(expand_inputs([images])) == 1


def test_a_label_map_of_a_datasets_labels_folder_given_by_name_is_refused_naming_its_scan(tmp_path, monkeypatch):
    """``predict Task09_Spleen/labelsTr/spleen_2.nii.gz`` predicted the case's reference label map as if it were
    its scan, without a word, where the folder it lies in was refused. Refused the same way, from the paths
    alone, naming the case's scan (or scans) beside it in imagesTr/; a pattern naming the file takes it as asked."""
    labels = touch(tmp_path / "Task09_Spleen" / "labelsTr", "spleen_2.nii.gz", "la_3.nii.gz", "case_9.nii")
    images = touch(tmp_path / "Task09_Spleen" / "imagesTr", "spleen_2_0000.nii.gz", "la_3_0000.nii.gz",
                   "la_3_0001.nii.gz", "la_30_0000.nii.gz")
    with pytest.raises(DataError) as raised:
        expand_inputs([labels / "spleen_2.nii.gz"])
    assert str(raised.value) == (
        f"{labels / 'spleen_2.nii.gz'} is a label map of a dataset's labelsTr/, a reference, not a scan: its scan "
        f"is {images / 'spleen_2_0000.nii.gz'} beside it, give that file; to segment it as a scan all the same, "
        f"give it as a quoted pattern, '{labels / 'spleen_2.nii.g[z]'}'")
    assert expand_inputs([str(labels / "spleen_2.nii.g[z]")]) == [labels / "spleen_2.nii.gz"]
    with pytest.raises(DataError, match=re.escape(  # a case of two channels: both, not la_30's
            f"its scans are {images / 'la_3_0000.nii.gz'}, {images / 'la_3_0001.nii.gz'} beside it, give those "
            f"files;")):
        expand_inputs([labels / "la_3.nii.gz"])
    touch(images, "spleen_2.nii.gz")  # the Decathlon's own naming, no _0000: what exists is named
    with pytest.raises(DataError, match=re.escape(f"its scans are {images / 'spleen_2.nii.gz'}, "
                                                  f"{images / 'spleen_2_0000.nii.gz'} beside it")):
        expand_inputs([labels / "spleen_2.nii.gz"])
    with pytest.raises(DataError, match=re.escape(  # no scan of the case: the layouts' names, in the map's ending
            f"{labels / 'case_9.nii'} is a label map of a dataset's labelsTr/, a reference, not a scan: give its "
            f"scan (imagesTr/case_9_0000.nii in nnU-Net's layout, imagesTr/case_9.nii in the Decathlon's); "
            f"to segment it as a scan all the same, give it as a quoted pattern, '{labels / 'case_9.ni[i]'}'")):
        expand_inputs([labels / "case_9.nii"])
    monkeypatch.chdir(labels)  # by the folder it lies in, however it is spelled
    with pytest.raises(DataError, match=re.escape("spleen_2.nii.gz is a label map of a dataset's labelsTr/")):
        expand_inputs(["spleen_2.nii.gz"])
    assert expand_inputs([images / "spleen_2_0000.nii.gz"]) == [images / "spleen_2_0000.nii.gz"]


def test_a_macos_resource_fork_given_by_name_is_refused_before_a_model_is_loaded(tmp_path):
    """A folder passes over "._case.nii.gz" (the Decathlon's imagesTs/ holds one beside every scan); given by
    name, it was read as the case "._case_6", after the model's load, "corrupt ...; re-export or re-download"."""
    folder = touch(tmp_path / "imagesTs", "case_6.nii.gz")
    (folder / "._case_6.nii.gz").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")
    assert [path.name for path in expand_inputs([folder])] == ["case_6.nii.gz"]
    with pytest.raises(DataError, match=re.escape(f"{folder / '._case_6.nii.gz'}: a macOS resource fork")):
        expand_inputs([folder / "._case_6.nii.gz"])


def test_a_scan_datalad_did_not_fetch_is_a_case_told_how_to_fetch_it_not_passed_over(tmp_path):
    """A folder passed over a git-annex link whose content is not fetched, its scan left out without a word,
    and given by name it was "no such file or folder" (until the hundred-and-fourth session)."""
    folder = touch(tmp_path / "imagesTs", "case_6.nii.gz")
    (folder / "case_7.nii.gz").symlink_to(ANNEX_LINK)
    assert [path.name for path in expand_inputs([folder])] == ["case_6.nii.gz", "case_7.nii.gz"]
    with pytest.raises(DataError, match=re.escape(f"{folder / 'case_7.nii.gz'}: a git-annex link whose content "
                                                  f"is not fetched")):
        expand_inputs([folder / "case_7.nii.gz"])
    # a pattern too: it passed over the link, its scan left out, until a review in the hundred-and-fourth session
    assert [path.name for path in expand_inputs([str(folder / "case_*.nii.gz")])] == ["case_6.nii.gz",
                                                                                      "case_7.nii.gz"]


def test_nifti_suffixes_are_recognised_in_any_case(tmp_path):
    """``CT_1.NII.GZ`` is a NIfTI file to nibabel; a folder of them once held "no .nii/.nii.gz file"."""
    folder = touch(tmp_path / "scans", "CT_1.NII.GZ", "mr_2_0000.Nii", "notes.txt")
    files = expand_inputs([folder])
    assert [p.name for p in files] == ["CT_1.NII.GZ", "mr_2_0000.Nii"]
    assert [c.id for c in group_cases(files, 1)] == ["CT_1", "mr_2"]
    assert output_paths(group_cases(files, 1), tmp_path / "out") == [tmp_path / "out" / "CT_1.nii.gz",
                                                                      tmp_path / "out" / "mr_2.nii.gz"]
    assert output_paths(group_cases(files[:1], 1), tmp_path / "ct.NII.GZ") == [tmp_path / "ct.NII.GZ"]


def test_a_file_given_as_the_folder_of_cases_is_told_the_ending_the_maps_take(tmp_path):
    """A model whose nnU-Net dataset.json declared ".nii" names its maps <case>.nii: the refusal of a file in the
    folder's place says that ending, not .nii.gz (ninety-seventh session's review)."""
    scans = touch(tmp_path / "scans", "a.nii.gz", "b.nii.gz")
    files = [scans / "a.nii.gz", scans / "b.nii.gz"]
    (tmp_path / "notes").write_text("")
    with pytest.raises(DataError, match=re.escape("go into a folder as <case>.nii: give a new or existing folder")):
        output_paths(group_cases(files, 1), tmp_path / "notes", ending=".nii")


def test_single_channel_files_are_cases_and_nnunet_suffix_is_dropped(tmp_path):
    cases = group_cases([tmp_path / "liver_7_0000.nii.gz", tmp_path / "brain.nii.gz"], 1)
    assert [(c.id, [p.name for p in c.channels]) for c in cases] == [
        ("brain", ["brain.nii.gz"]), ("liver_7", ["liver_7_0000.nii.gz"])]
    with pytest.raises(DataError, match="2 files give channel 0000"):
        group_cases([tmp_path / "a.nii.gz", tmp_path / "a_0000.nii.gz"], 1)


def test_multi_channel_files_group_by_case_in_channel_order(tmp_path):
    files = [tmp_path / n for n in ("b_0001.nii.gz", "a_0001.nii.gz", "a_0000.nii.gz", "b_0000.nii.gz")]
    cases = group_cases(files, 2)
    assert [(c.id, [p.name for p in c.channels]) for c in cases] == [
        ("a", ["a_0000.nii.gz", "a_0001.nii.gz"]), ("b", ["b_0000.nii.gz", "b_0001.nii.gz"])]


def test_a_channel_in_another_format_beside_the_others_is_named_with_its_conversion(tmp_path):
    """imagesTs holding case_0000.mha beside case_0001.nii.gz (nnU-Net reads both) was told to add case_0000.nii.gz
    next to the others, the .mha there unsaid."""
    (tmp_path / "a_0000.mha").write_bytes(b"ObjectType = Image")
    with pytest.raises(DataError, match=r"case 'a' lacks channel file\(s\) a_0000.nii.gz \(T1\); add them next to the "
                                        r"others \(a_0000.mha is there, which predict does not read: only NIfTI; "
                                        r"convert it, e.g. with SimpleITK \(nnU-Net's own reader\): "
                                        r"SimpleITK.WriteImage\(SimpleITK.ReadImage\('a_0000.mha'\), "
                                        r"'a_0000.nii.gz'\)\)"):
        group_cases([tmp_path / "a_0001.nii.gz"], 2, {"0": "T1", "1": "FLAIR"})


@pytest.mark.parametrize("names, conversion", [
    # A DICOM file is one slice of a series: ReadImage('case_0000.dcm') wrote one slice as the case
    (["IM0000.dcm", "IM0001.dcm"], "e.g. with dcm2niix, which reads a DICOM series, one file per slice, as one "
                                   "volume: dcm2niix -z y <folder>"),
    # A TIFF holds no voxel spacing (nnU-Net reads it from the .json beside it): written as 1 mm voxels
    (["a_0000.tif"], "e.g. with SimpleITK (nnU-Net's own reader): image = SimpleITK.ReadImage('a_0000.tif'); "
                     "image.SetSpacing((x, y, z)); SimpleITK.WriteImage(image, 'a_0000.nii.gz'), with the voxel size "
                     "in mm, which a .tif file does not hold (nnU-Net reads it from the .json beside it)"),
])
def test_a_folder_of_dicom_slices_or_tiffs_is_told_a_conversion_that_keeps_the_volume_and_its_spacing(
        tmp_path, names, conversion):
    """The SimpleITK line of one file lost the volume of DICOM slices and the spacing of TIFFs (hundred-and-fifth
    session's review)."""
    for name in names:
        (tmp_path / name).write_bytes(b"DICM")
    with pytest.raises(DataError) as refused:
        expand_inputs([str(tmp_path)])
    assert str(refused.value).endswith(f"({', '.join(names)}), which are not read: only NIfTI is; convert them to "
                                       f"NIfTI, {conversion}")


def test_channel_naming_problems_are_all_reported(tmp_path):
    files = [tmp_path / n for n in ("a_0000.nii.gz", "b_0000.nii.gz", "b_0001.nii.gz", "b_0002.nii.gz", "t1.nii.gz")]
    nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.float32), np.eye(4)), files[-1])  # 3D: one channel, unnamed
    with pytest.raises(DataError) as error:
        group_cases(files, 2, {"0": "T1", "1": "FLAIR"})
    message = str(error.value)
    assert "case 'a' lacks channel file(s) a_0001.nii.gz (FLAIR)" in message
    assert "b_0002.nii.gz: channel 0002, but the model takes 2 channel(s)" in message
    assert "t1.nii.gz: the model takes 2 channels, so each file must be named <case>_0000.nii.gz" in message
    assert "(one per channel) or by the channels' names, <case>_T1.nii.gz ... <case>_FLAIR.nii.gz, or hold all 2 as " \
        "one 4D (x, y, z, 2) image" in message


def test_files_named_by_the_models_channel_names_group_as_brats_names_them(tmp_path):
    """BraTS' own naming, <case>_t1.nii.gz ... <case>_flair.nii.gz (BraTS 2023's <case>-t1c.nii.gz), groups by
    the channel names of the model's config.json, in its channel order; every file was refused as "rename it"
    to <case>_0000.nii.gz, one line per file, until the ninety-fifth session."""
    names = {"0": "t1", "1": "t1ce", "2": "t2", "3": "flair"}
    files = [tmp_path / f"BraTS_{case}_{channel}.nii.gz" for case in ("002", "001") for channel in
             ("flair", "t2", "T1ce", "t1")]
    files += [tmp_path / f"BraTS-GLI-7-{c}.nii.gz" for c in ("t1", "t1ce", "t2", "flair")]
    files += [tmp_path / f"BraTS_003_{c}.nii.gz" for c in ("t1", "t1ce", "flair")]
    for path in files:  # 3D files, one channel each
        nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.float32), np.eye(4)), path)
    cases = group_cases(files[:-3], 4, names)
    assert [(c.id, [p.name for p in c.channels]) for c in cases] == [
        ("BraTS-GLI-7", [f"BraTS-GLI-7-{c}.nii.gz" for c in ("t1", "t1ce", "t2", "flair")]),
        *[(f"BraTS_{case}", [f"BraTS_{case}_{c}.nii.gz" for c in ("t1", "T1ce", "t2", "flair")])
          for case in ("001", "002")]]
    lacking = r"case 'BraTS_003' lacks channel file\(s\) BraTS_003_t2.nii.gz \(t2\); add"
    with pytest.raises(DataError, match=lacking) as told:
        group_cases(files[-3:], 4, names)
    assert "0002" not in str(told.value)


def test_a_4d_file_of_every_channel_is_one_case_of_a_multi_channel_model(tmp_path):
    """The Decathlon's BrainTumour stores a case's four MR channels in one (x, y, z, 4) file."""
    nib.save(nib.Nifti1Image(np.zeros((4, 4, 4, 2), np.float32), np.eye(4)), tmp_path / "BRATS_001.nii.gz")
    files = [tmp_path / "BRATS_001.nii.gz", tmp_path / "c_0000.nii.gz", tmp_path / "c_0001.nii.gz"]
    assert [(c.id, [p.name for p in c.channels]) for c in group_cases(files, 2)] == [
        ("BRATS_001", ["BRATS_001.nii.gz"]), ("c", ["c_0000.nii.gz", "c_0001.nii.gz"])]
    # named like a channel file, it is still every channel: taken for channel 0001 (a case lacking 0000),
    # or three such files for three channels of one case, before the seventy-fourth session
    for name in ("pat_0001.nii.gz", "subj_0000.nii.gz", "subj_0001.nii.gz"):
        nib.save(nib.Nifti1Image(np.zeros((4, 4, 4, 2), np.float32), np.eye(4)), tmp_path / name)
    files = [tmp_path / name for name in ("pat_0001.nii.gz", "subj_0000.nii.gz", "subj_0001.nii.gz")]
    assert [(c.id, [p.name for p in c.channels]) for c in group_cases(files, 2)] == [
        ("pat_0001", ["pat_0001.nii.gz"]), ("subj_0000", ["subj_0000.nii.gz"]), ("subj_0001", ["subj_0001.nii.gz"])]


def test_a_4d_file_of_another_number_of_channels_is_told_its_count_not_to_be_renamed(tmp_path):
    """A (x, y, z, 3) file for a model of 2 channels was told to be renamed <case>_0000.nii.gz ... or to
    hold all 2 channels, as if its name were the fault; named like a channel file, it was taken for
    channel 0000 and its case said to lack 0001 (an audit's probe). In the words predict's reading, evaluate and
    training's check use for such a file, and one named as a channel not said to be missing from its case besides
    (both until the hundred-and-twenty-first session, helper h112)."""
    order = "in the order channel 0 (T1), channel 1 (FLAIR)"
    nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.float32), np.eye(4)), tmp_path / "pat_0001.nii.gz")
    for name, said in (("BRATS_001.nii.gz", "and this one file is given for them: store them in it as (x, y, z, 2), "
                                            f"or give one 3D file per channel, {order}"),
                       ("pat_0000.nii.gz", "and it is one of the 2 files given for them, one 3D volume each: give one "
                                           f"3D file per channel, {order}, or one file of them all as (x, y, z, 2)")):
        nib.save(nib.Nifti1Image(np.zeros((4, 4, 4, 3), np.float32), np.eye(4)), tmp_path / name)
        with pytest.raises(DataError) as refused:
            group_cases([tmp_path / name, *([tmp_path / "pat_0001.nii.gz"] if name.startswith("pat") else [])], 2,
                        {"0": "T1", "1": "FLAIR"})
        assert str(refused.value).endswith(f"\n{tmp_path / name}: shape (4, 4, 4, 3) is 4D with 3 volumes, but the "
                                           f"model takes 2 channels {said}"), str(refused.value)
        assert "lacks" not in str(refused.value), str(refused.value)


def test_a_4d_file_named_by_a_channels_name_is_told_as_one_of_its_cases_files_and_not_missing(tmp_path):
    """BraTS' naming, <case>_T1.nii.gz, names a channel as <case>_0000.nii.gz does: a 4D file so named was told "this
    one file is given for them: store them in it as (x, y, z, 2)" beside the FLAIR file given, and its case said to
    lack pat_T1.nii.gz, the file named, until the review of h112, which fixed both for _0000 names alone. A channel
    truly lacking is still said."""
    names = {"0": "T1", "1": "FLAIR"}
    nib.save(nib.Nifti1Image(np.zeros((4, 4, 4, 3), np.float32), np.eye(4)), tmp_path / "pat_T1.nii.gz")
    nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.float32), np.eye(4)), tmp_path / "pat_FLAIR.nii.gz")
    with pytest.raises(DataError) as refused:
        group_cases([tmp_path / "pat_T1.nii.gz", tmp_path / "pat_FLAIR.nii.gz"], 2, names)
    assert str(refused.value).endswith(
        f"\n{tmp_path / 'pat_T1.nii.gz'}: shape (4, 4, 4, 3) is 4D with 3 volumes, but the model takes 2 channels and "
        "it is one of the 2 files given for them, one 3D volume each: give one 3D file per channel, in the order "
        "channel 0 (T1), channel 1 (FLAIR), or one file of them all as (x, y, z, 2)"), str(refused.value)
    with pytest.raises(DataError, match=r"case 'pat' lacks channel file\(s\) pat_FLAIR.nii.gz \(FLAIR\)") as refused:
        group_cases([tmp_path / "pat_T1.nii.gz"], 2, names)
    assert "pat_T1.nii.gz (T1)" not in str(refused.value), str(refused.value)


def test_a_folder_per_case_gives_a_case_per_folder_named_as_training_names_it(tmp_path):
    """``case_001/image.nii.gz``, ``case_002/image.nii.gz``: grouped by file name alone until the
    seventy-second session, every scan was one case "image", refused with "keep one"."""
    for case in ("case_001", "case_002"):
        touch(tmp_path / "data" / case, "image.nii.gz", "seg.nii.gz")
    files = expand_inputs([str(tmp_path / "data" / "*" / "image.nii.gz")])
    cases = group_cases(files, 1)
    assert [(c.id, c.channels) for c in cases] == [("case_001_image", (files[0],)), ("case_002_image", (files[1],))]
    assert output_paths(cases, tmp_path / "out") == [tmp_path / "out" / "case_001_image.nii.gz",
                                                      tmp_path / "out" / "case_002_image.nii.gz"]
    # multi-channel cases in folders of their own, and a name given once keeps its name
    for case in ("p1", "p2"):
        touch(tmp_path / "mr" / case, "scan_0000.nii.gz", "scan_0001.nii.gz")
    lone = touch(tmp_path / "mr", "other_0000.nii.gz", "other_0001.nii.gz")
    files = expand_inputs([str(tmp_path / "mr" / "*" / "scan_*.nii.gz"), lone])
    assert [(c.id, [p.parent.name for p in c.channels]) for c in group_cases(files, 2)] == [
        ("other", ["mr", "mr"]), ("p1_scan", ["p1", "p1"]), ("p2_scan", ["p2", "p2"])]
    # a folder's own name kept where the qualified id of another would take it: refused, both named
    touch(tmp_path / "flat", "case_001_image.nii.gz")
    with pytest.raises(DataError, match=r"case id 'case_001_image' is given by .*; rename one"):
        group_cases([*expand_inputs([str(tmp_path / "data" / "*" / "image.nii.gz")]),
                     tmp_path / "flat" / "case_001_image.nii.gz"], 1)


def test_a_folder_of_case_folders_says_which_pattern_reaches_the_scans(tmp_path):
    touch(tmp_path / "data" / "case_001", "image.nii.gz")
    touch(tmp_path / "data" / "case_002", "image.nii.gz")
    with pytest.raises(DataError, match=r"holds no .nii/.nii.gz file itself, but its subfolders hold 2 .*"
                                        r"give them as a quoted pattern such as '.*/data/\*/image.nii.gz'"):
        expand_inputs([tmp_path / "data"])


def test_whether_predict_wrote_a_file_is_read_once_while_the_file_stays_as_it_is(tmp_path, monkeypatch):
    """The command line checks the outputs before the inference stack imports and predict_cases again after
    (ninety-second session): each existing label map was read and digested twice, 1.5 s each for a
    512x512x300 one on 2 cores. A file written again is read again."""
    import accelerated_seg.predict_marks as predict_marks
    from accelerated_seg.inference_files import label_map_descrip, written_by_predict

    labels = np.zeros((4, 4, 4), np.uint8)
    labels[1, 1, 1] = 2

    def save(values):
        image = nib.Nifti1Image(values, np.eye(4))
        image.header["descrip"] = label_map_descrip(labels)
        nib.save(image, tmp_path / "case.nii.gz")

    save(labels)
    reads = []
    monkeypatch.setattr(predict_marks.nib, "load", lambda path: reads.append(path) or nib.loadsave.load(path))
    assert written_by_predict(tmp_path / "case.nii.gz") is None and written_by_predict(tmp_path / "case.nii.gz") is None
    assert len(reads) == 1
    save(labels + 1)  # corrected by hand, its header kept
    assert written_by_predict(tmp_path / "case.nii.gz") == "changed since predict wrote it" and len(reads) == 2
    assert written_by_predict(tmp_path / "missing.nii.gz") == "not written by predict"


@pytest.mark.parametrize("name", ["case.nii", "case.nii.gz"])
@pytest.mark.parametrize("offset, value", [(70, 999), (70, 0), (108, 10.0)])  # datatype 999 and 0; vox_offset 10
def test_a_header_nibabels_checks_refuse_is_not_predicts_though_its_descrip_carries_the_mark(tmp_path, name, offset,
                                                                                             value, monkeypatch,
                                                                                             capsys):
    """Read unchecked, such a header whose descrip held predict's mark was predict's to evaluate's advice ("predict
    this case ... which wrote the others"), and ``written_by_predict`` let nib.load's HeaderDataError out of
    predict's check of its outputs as a traceback (until the ninety-ninth session): it is not ours, to either.
    nibabel's own line on it ("data code 999 not recognized; not attempting fix") came out on stderr above our
    answer, from each read (until the ninety-ninth session): kept off it, and nibabel's logger as it was."""
    import gzip
    import struct

    from accelerated_seg.inference_files import label_map_descrip, marked_by_predict, written_by_predict
    from accelerated_seg.inference_outputs import _check_only_predictions_replaced

    labels = np.zeros((4, 4, 4), np.uint8)
    image = nib.Nifti1Image(labels, np.eye(4))
    image.header["descrip"] = label_map_descrip(labels)
    nib.save(image, tmp_path / "case.nii")
    assert marked_by_predict(tmp_path / "case.nii") and written_by_predict(tmp_path / "case.nii") is None
    damaged = bytearray((tmp_path / "case.nii").read_bytes())
    struct.pack_into("<h" if offset == 70 else "<f", damaged, offset, value)  # nifti1's datatype; vox_offset
    (tmp_path / "case.nii").unlink()
    (tmp_path / name).write_bytes(gzip.compress(damaged) if name.endswith(".gz") else damaged)
    level = nib.imageglobals.logger.level
    for handler in nib.imageglobals.logger.handlers:  # nibabel's, bound to the stderr of its import: this test's
        monkeypatch.setattr(handler, "stream", sys.stderr)
    capsys.readouterr()
    with pytest.raises(nib.spatialimages.HeaderDataError):  # nibabel's own checks refuse it, and say so
        nib.load(tmp_path / name)
    said = capsys.readouterr().err
    assert said.strip() and any(words in said for words in ("not recognized", "not supported", "too low")), said
    assert not marked_by_predict(tmp_path / name)
    assert written_by_predict(tmp_path / name) == "not written by predict"
    with pytest.raises(DataError, match=rf"^{re.escape(str(tmp_path / name))} \(not written by predict\) already"):
        _check_only_predictions_replaced([tmp_path / name])
    assert capsys.readouterr().err == "" and nib.imageglobals.logger.level == level


def test_predicts_mark_is_read_from_the_header_alone_with_nib_loads_answers(tmp_path):
    """``marked_by_predict`` (evaluate's advice for a missing case asks it of every prediction) read each file
    with nib.load until the ninety-seventh session; it reads the header alone since, and answers as before:
    predict's mark in NIfTI-1 or -2, either byte order, gzip or not, and False, never an error, for another
    tool's file, a damaged one, one misnamed, a folder or nothing at all (a .nii.gz whose deflate stream is
    corrupt raised zlib.error through nib.load, out of evaluate's advice, until then)."""
    from accelerated_seg.inference_files import PREDICTION_DESCRIP, label_map_descrip, marked_by_predict

    def written(name, descrip=PREDICTION_DESCRIP, klass=nib.Nifti1Image, dtype="<u1"):
        image = klass(np.zeros((4, 4, 4), np.dtype(dtype)), np.eye(4))
        image.header["descrip"] = descrip
        nib.save(image, tmp_path / name)
        return tmp_path / name

    marked = [written("a.nii.gz"), written("b.nii"), written("c.nii.gz", label_map_descrip(np.zeros((4, 4, 4)))),
              written("d.nii.gz", klass=nib.Nifti2Image), written("e.nii", dtype=">i2"), written("F.NII.GZ")]
    unmarked = [written("g.nii.gz", b"another tool"), written("h.nii", b""),
                written("i.nii.gz", PREDICTION_DESCRIP[:-1])]
    plain = written("j.nii").read_bytes()
    damaged = {"plain_under_gz.nii.gz": plain, "gzip_under_nii.nii": (tmp_path / "a.nii.gz").read_bytes(),
               "empty.nii.gz": b"", "empty.nii": b"", "short.nii": plain[:200], "noise.nii": bytes(range(256)) * 3,
               "cut_gzip.nii.gz": (tmp_path / "a.nii.gz").read_bytes()[:20],
               "corrupt_gzip.nii.gz": (tmp_path / "a.nii.gz").read_bytes()[:10] + b"\xff" * 600}
    for name, content in damaged.items():
        (tmp_path / name).write_bytes(content)
    (tmp_path / "folder.nii.gz").mkdir()
    assert [marked_by_predict(path) for path in marked] == [True] * len(marked)
    assert [marked_by_predict(str(path)) for path in marked] == [True] * len(marked)
    others = [*unmarked, *(tmp_path / name for name in damaged), tmp_path / "folder.nii.gz", tmp_path / "no.nii.gz"]
    assert {path.name: marked_by_predict(path) for path in others} == {path.name: False for path in others}
