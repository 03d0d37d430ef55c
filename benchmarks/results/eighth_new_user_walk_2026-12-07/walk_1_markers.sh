#!/bin/bash
# Command: cd <worktree> && bash benchmarks/results/eighth_new_user_walk_2026-12-07/walk_1_markers.sh \
#            > benchmarks/results/eighth_new_user_walk_2026-12-07/walk_1_markers.txt 2>&1
# docs/testing.md's marker selections, as the page writes them (.venv is a link to the project's venv; the
# package from this checkout by PYTHONPATH): the cuda selection run whole (skipped without a GPU); the
# distributed tier and the rest collected (not run: the whole suite is not this walk's), counted per file.
set -u
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD
echo "== .venv/bin/python -m pytest -m cuda tests/"
/usr/bin/time -f "%e s wall, %U s user" .venv/bin/python -m pytest -m cuda tests/ -p no:cacheprovider 2>&1 | tail -15
echo
echo "== collected, all"
.venv/bin/python -m pytest --collect-only -q -p no:cacheprovider 2>&1 | tail -1
echo "== collected, -m distributed (the tier), per file"
.venv/bin/python -m pytest --collect-only -q -m distributed -p no:cacheprovider > /tmp/h144_tier.txt 2>&1
tail -1 /tmp/h144_tier.txt
grep :: /tmp/h144_tier.txt | cut -d: -f1 | sort | uniq -c
echo "== collected, -m 'not distributed'"
.venv/bin/python -m pytest --collect-only -q -m "not distributed" -p no:cacheprovider 2>&1 | tail -1
echo "== the page's tier items: in the tier (-m distributed) or not"
for t in test_ddp_trains_validates_each_case_once_and_exports test_two_processes_match_one_process_with_the_same_global_batch \
         test_non_finite_loss_on_one_rank_is_skipped_by_both_without_a_hang test_sigterm_to_one_rank_stops_both_and_resume_is_bit_identical \
         test_two_processes_predict_like_one_by_cases_and_by_windows test_cpu_profiles_train_export_and_agree \
         test_fsdp2_in_bf16_with_checkpointed_blocks_of_a_network_sharing_layers_resumes_exactly \
         test_fsdp2_size_based_units_pass_over_module_containers_and_train_as_one_process \
         test_fsdp2_size_based_policy_shards_every_network_at_full_size_root_included \
         test_fsdp2_size_based_policy_passes_over_containers_of_every_network_at_full_size \
         test_fit_your_own_example_under_two_processes test_every_registry_network_trains_exports_and_segments \
         test_the_zero2_profile_trains_in_bf16_validates_and_exports_float32 test_the_benchmark_measures_zero2_on_a_network_with_an_odd_parameter_count \
         test_zero2_and_zero3_shard_over_two_processes_agree_with_one_process_and_resume_exactly \
         test_a_zero3_offload_resume_ends_bit_identical_to_the_uninterrupted_run test_a_non_finite_loss_skips_the_step_under_deepspeed; do
  if grep -q "::$t" /tmp/h144_tier.txt; then echo "tier     $t"; else echo "NOT tier $t ($(grep -l "def $t" tests/*.py))"; fi
done
echo "== Segmentation(..., multi_gpu=True).fit tests in the tier"
grep "test_estimator.py" /tmp/h144_tier.txt
