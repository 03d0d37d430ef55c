"""One reader per dataset description format, each returning a Manifest.

:func:`accelerated_seg.data.manifest.load_cases` picks among them: :mod:`.msd` (Decathlon
dataset.json), :mod:`.nnunet` (nnU-Net v2 raw folder), :mod:`.csv_table` (CSV of paths) and
:mod:`.pairs` (a Python list); :mod:`.dataset_json` and :mod:`.paths` hold what they share.
"""
