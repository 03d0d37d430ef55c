# bash walk_2_inputs.sh > walk_2_inputs.txt 2>&1
# inference.md "### Inputs and cases", first part: extensions in any case, hidden files, a file reached twice, and
# every row of the table of inputs refused before torch and MONAI are imported (each timed: 0.3 s promised), then
# the quoted pattern that segments label maps all the same.
source /tmp/wt_h136/benchmarks/results/fourth_new_user_walk_2026-12-07/env.sh
D=output/demo/synthetic_data
M=output/demo/best_model
set -x
mkdir -p in2 && cp scans/scan1.nii.gz in2/CT_1.NII.GZ && cp scans/scan1.nii.gz in2/._CT_1.NII.GZ
gunzip -c scans/scan2.nii.gz > in2/plain.nii
st accelerated-seg predict --model $M in2 in2/CT_1.NII.GZ ./in2/../in2/plain.nii 'in2/*.nii' --output out_in2
ls -a out_in2
# nothing NIfTI: a typo, an empty folder, a .mgz; a folder of case folders
time st accelerated-seg predict --model $M scnas/ --output out_x
mkdir -p empty && time st accelerated-seg predict --model $M empty --output out_x
cp scans/scan1.nii.gz brain.mgz && time st accelerated-seg predict --model $M brain.mgz --output out_x
mkdir -p data/case_001 data/case_002 && cp scans/scan1.nii.gz data/case_001/image.nii.gz && cp scans/scan2.nii.gz data/case_002/image.nii.gz
time st accelerated-seg predict --model $M data --output out_x
# .mha / .nrrd (a folder of them, one named)
mkdir -p mha && touch mha/a_0000.mha mha/b_0000.mha && touch scan.nrrd
time st accelerated-seg predict --model $M mha --output out_x
time st accelerated-seg predict --model $M scan.nrrd --output out_x
# DICOM slices; TIFF, PNG, BMP
mkdir -p dicom tif && touch dicom/IM0001.dcm dicom/IM0002.dcm tif/slice_001.tif tif/slice_002.png
time st accelerated-seg predict --model $M dicom --output out_x
time st accelerated-seg predict --model $M tif --output out_x
# a resource fork by name (a copy of a scan named ._ is a scan; Finder's is AppleDouble, its magic 00 05 16 07)
time st accelerated-seg predict --model $M in2/._CT_1.NII.GZ --output out_fork_copy
printf '\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X' > in2/._CT_1.NII.GZ
time st accelerated-seg predict --model $M in2/._CT_1.NII.GZ --output out_x
# a dataset.json, or the dataset's folder (the page's example: a Decathlon task with a "test" list of 3)
mkdir -p Task09_Spleen/imagesTr Task09_Spleen/labelsTr Task09_Spleen/imagesTs Task09_Spleen/labelsTs
for i in 2 3; do cp $D/imagesTr/case_000.nii.gz Task09_Spleen/imagesTr/spleen_$i.nii.gz; cp $D/labelsTr/case_000.nii.gz Task09_Spleen/labelsTr/spleen_$i.nii.gz; done
for i in 1 7 8; do cp $D/imagesTr/case_001.nii.gz Task09_Spleen/imagesTs/spleen_$i.nii.gz; cp $D/labelsTr/case_001.nii.gz Task09_Spleen/labelsTs/spleen_$i.nii.gz; done
cat > Task09_Spleen/dataset.json <<'JSON'
{"name": "Spleen", "modality": {"0": "CT"}, "labels": {"0": "background", "1": "spleen"}, "numTraining": 2,
 "numTest": 3, "training": [{"image": "./imagesTr/spleen_2.nii.gz", "label": "./labelsTr/spleen_2.nii.gz"},
 {"image": "./imagesTr/spleen_3.nii.gz", "label": "./labelsTr/spleen_3.nii.gz"}],
 "test": ["./imagesTs/spleen_1.nii.gz", "./imagesTs/spleen_7.nii.gz", "./imagesTs/spleen_8.nii.gz"]}
JSON
time st accelerated-seg predict --model $M Task09_Spleen/dataset.json --output out_x
time st accelerated-seg predict --model $M Task09_Spleen --output out_x
# an export's config.json; any other JSON
time st accelerated-seg predict --model $M $M/config.json --output out_x
echo '{"a": 1}' > other.json && time st accelerated-seg predict --model $M other.json --output out_x
# a dataset's labelsTr/ or labelsTs/; one of their label maps by name (the Decathlon's naming, then nnU-Net's _0000)
time st accelerated-seg predict --model $M Task09_Spleen/labelsTs --output out_x
time st accelerated-seg predict --model $M Task09_Spleen/labelsTr/spleen_2.nii.gz --output out_x
mv Task09_Spleen/imagesTr/spleen_2.nii.gz Task09_Spleen/imagesTr/spleen_2_0000.nii.gz
time st accelerated-seg predict --model $M Task09_Spleen/labelsTr/spleen_2.nii.gz --output out_x
# to segment label maps all the same: a quoted pattern
st accelerated-seg predict --model $M 'Task09_Spleen/labelsTs/*.nii.gz' --output out_labels
ls out_labels
st accelerated-seg predict --model $M 'Task09_Spleen/labelsTr/spleen_2.nii.g[z]' --output out_label1
ls out_label1
