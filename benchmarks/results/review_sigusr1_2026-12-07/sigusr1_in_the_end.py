# The temporary test sigusr1_in_the_end.txt ran (appended to tests/test_inference_distributed.py, removed after).
# def test_zz_probe_sigusr1_in_the_end(data, tmp_path, monkeypatch):
#     monkeypatch.setenv("ONE_RANK_ERROR", "slow")
#     monkeypatch.setenv("ONE_RANK_STAGE", "case_prediction")
#     monkeypatch.setenv("ONE_RANK_STARTED", str(tmp_path / "sleeping"))
#     monkeypatch.setenv("ONE_RANK_MAIN_POLL_S", "3")
#     cmd, env = two_processes(predict_two_scans_args(data, tmp_path, "one_rank_bug_predict.py", "--split", os.environ.get("PROBE_SPLIT", "windows")))
#     with launched_until(tmp_path / "sleeping", cmd, env, tmp_path) as launch:
#         by_rank = launched_by_rank(launch.pid)
#         since = time.monotonic()
#         os.kill(by_rank[1], signal.SIGINT)
#         time.sleep(0.5)
#         with contextlib.suppress(ProcessLookupError):
#             os.kill(by_rank[1], signal.SIGUSR1)
#         end = launch_end(launch, list(by_rank.values()), since)
#     print(f"\n===== SIGINT to process 1, SIGUSR1 0.5 s after, the main process's watcher looking each 3 s: launcher "
#           f"{end.returncode}, processes ended after {end.processes_ended_s:.2f} s")
#     print("\n".join(line for line in without_torch_records(end.stderr)))
#     print("exitcodes:", re.findall(r"rank\s*: (\d) .*\n\s*exitcode\s*: (-?\d+)", end.stderr))
#     print("files:", sorted(path.name for path in (tmp_path / "out").iterdir()))
