# The temporary test these runs used (appended to tests/test_inference_distributed.py, removed after; r96 at 95885b26).
# two_signals.txt: the first run (each signal to both processes, 0.02 s apart); the second, four cases:
# def test_zz_probe_two_signals(order, ranks, gap, data, tmp_path, monkeypatch):
#     monkeypatch.setenv("ONE_RANK_ERROR", "slow")
#     monkeypatch.setenv("ONE_RANK_STAGE", "case_prediction")
#     monkeypatch.setenv("ONE_RANK_STARTED", str(tmp_path / "sleeping"))
#     cmd, env = two_processes(predict_two_scans_args(data, tmp_path, "one_rank_bug_predict.py", "--split", "windows"))
#     with launched_until(tmp_path / "sleeping", cmd, env, tmp_path) as launch:
#         by_rank = launched_by_rank(launch.pid)
#         since = time.monotonic()
#         for name in order.split(","):
#             for rank in ranks.split(","):
#                 with contextlib.suppress(ProcessLookupError):
#                     os.kill(by_rank[int(rank)], getattr(signal, "SIG" + name))
#             time.sleep(gap)
#         end = launch_end(launch, list(by_rank.values()), since)
#     print(f"\n===== {order} to {ranks}, {gap} s apart: launcher {end.returncode}, "
#           f"processes ended after {end.processes_ended_s:.2f} s")
#     print("\n".join(line for line in without_torch_records(end.stderr)))
#     print("exitcodes:", re.findall(r"rank\s*: (\d) .*\n\s*exitcode\s*: (-?\d+)", end.stderr))
#     print("files:", sorted(path.name for path in (tmp_path / "out").iterdir()))
