# docs/python_api.md's Python block 2, as the page gives it
from accelerated_seg import Segmentation

names = {"resume": "--resume latest", "resume_again": "run the same command with --resume latest",
         "overwrite": "--overwrite", "overwrite_again": "--overwrite", "elsewhere": "another --out",
         "folder": "the run folder under --out", "length": "--steps"}
model = Segmentation("unet", output_dir=f"{args.out}/run", overwrite=args.overwrite)
model.fit(data, steps=args.steps, resume=args.resume, names=names)
