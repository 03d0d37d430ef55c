# python probe_5_misspelt_option.py > probe_5_misspelt_option.txt 2>&1   (after `source env.sh`; PKG=/work/main: main)
# A predict option misspelt by a letter, given to Segmentation(...): what is it offered?
from accelerated_seg.estimator import Segmentation

for name in ("keep_larges", "keep_largst", "keeplargest", "overlaps", "over_lap", "devise", "precison", "keep_lst",
             "sw_overlaps", "tta_mode", "devices"):
    try:
        Segmentation("unet", **{name: 1})
    except Exception as error:
        print(name, "->", str(error)[:240])
