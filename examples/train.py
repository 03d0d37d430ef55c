r"""Train a 3D segmentation model. The strategy comes from the accelerate config, never from this file:

    accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --config configs/demo.yaml
    accelerate launch --config_file configs/accelerate/ddp.yaml examples/train.py --config configs/demo.yaml \
        --train.global_batch_size=16 --optim.lr_scaling=sqrt

Any ``--section.key=value`` overrides the experiment config. The run goes into ``train.output_dir``
(checkpoints/, model/, best_model/, metrics.json, summary.json); at the end the main process writes
report.png there (a validation slice: image, label, prediction; and the loss/Dice curves).
"""

if __name__ == "__main__":  # first: a stop while the lines below import says so (accelerated_seg/early_signals.py)
    import signal

    from accelerated_seg.early_signals import stopping_before_the_command

    stopping_before_the_command("examples/train.py", noting=(signal.SIGUSR1,))  # SIGUSR1: a save after the first step

import argparse

from accelerated_seg.cli import GivenOnce, end_process, exit_on_user_error, path_argument
from accelerated_seg.collector import importing_without_collection
from accelerated_seg.config import load_config
from accelerated_seg.run_folder import check_before_the_imports


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=path_argument, action=GivenOnce, help="experiment YAML (configs/*.yaml)")
    parser.add_argument("--resume", type=path_argument, action=GivenOnce,
                        help="'latest' or a checkpoint folder (same as --train.resume=...)")
    parser.add_argument("--no-report", action="store_true", help="skip the PNG report")
    args, overrides = parser.parse_known_args()
    if args.resume:
        overrides.append(f"--train.resume={args.resume}")
    cfg = load_config(args.config, overrides)
    check_before_the_imports(cfg, args.config)  # missing data, an init_from or resume typo, an earlier run
    # Imported once the settings are read: the training stack (torch, MONAI, accelerate) takes each
    # rank 5-9 s to import on 2 cores, which a mistyped setting need not wait for; and without the
    # garbage collector walking it meanwhile and in every collection after (accelerated_seg/collector.py).
    with importing_without_collection():
        from accelerated_seg.train import train

    summary = train(cfg)
    # Preempted (SIGTERM/SIGUSR1): the state is saved and a scheduler requeues on exit code 0; the
    # report needs an exported model, and the grace period is better left unspent.
    if summary["is_main_process"] and not args.no_report and not summary["preempted"]:
        from accelerated_seg.report import write_report

        print(f"report: {write_report(cfg)}")
    return summary["preempted"]


if __name__ == "__main__":
    with exit_on_user_error():  # a bad setting or file: its one-line message, not a traceback
        preempted = main()
    # a launched rank ends without the interpreter's shutdown; a preempted one ignores a second notice (end_process)
    end_process(0, preempted=preempted)
